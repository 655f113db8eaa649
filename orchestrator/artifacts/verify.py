"""`invoke verify --pte FILE`: a ready artifact's Ethos-U command streams on the host's
NPU model, against the device, bit for bit, on every lane the target has.

A lane is a simulator that runs the target's NPU: QEMU with the NPU model in the
firmware, the Corstone FVP where it is installed. Each lane runs the artifact once over every
input set (a .bpte's test cases, else the seeded inputs `run --pte` uses) in one session; the
host then runs each delegate on the inputs that device received, built as the program builds
them (orchestrator.artifacts.host_check), and every delegate output that reaches a method
output must agree. A lane that cannot run says why and is not counted. A .pte holds no TOSA,
so no claim against a TOSA reference is made: the reference is each lane's device."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from orchestrator.artifacts.ethosu import is_ethosu
from orchestrator.artifacts.host_check import HostCheck, check_input_set
from orchestrator.artifacts.imported import import_artifact
from orchestrator.artifacts.inspection import Inspection, inspect_artifact
from orchestrator.artifacts.run import (
    SECONDS_PER_CASE,
    case_inputs,
    prepare_artifact_run,
    refuse_unrunnable,
    suite_for,
    target_of,
)
from orchestrator.artifacts.wiring import DelegateWiring, WiringError, delegate_wiring
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.npu_model import MODEL_NAME
from orchestrator.npu_model.binstream import VelaProgram, parse_blob
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.version import model_version
from orchestrator.options import RunRequest
from orchestrator.runner.areas import InputTensor
from orchestrator.runner.model_run import input_tensors
from orchestrator.runner.sample_session import SessionLimits, run_session
from orchestrator.targets import load_catalogue

REFERENCE = ("each lane's device outputs for the same inputs (a .pte holds no TOSA graph, so "
             "nothing is checked against a TOSA reference)")


@dataclass(frozen=True)
class Subject:
    """What every lane checks: the artifact, its target and NPU, its delegates' command
    streams and wiring, and the input sets."""

    inspection: Inspection
    target: str
    npu: Npu
    programs: dict[int, VelaProgram]
    wirings: list[DelegateWiring]
    input_sets: list[list[InputTensor]]
    inputs_from: str


def refuse_nothing_to_check(inspection: Inspection) -> None:
    """A program with no Ethos-U delegate has no command stream to run on the host."""
    if not inspection.ethosu:
        raise OrchestratorError(
            f"{inspection.path} has no Ethos-U delegate, so there is no command stream for "
            f"the NPU model to check",
            f"run it instead: invoke run --pte {inspection.path}")


def wirings_of(inspection: Inspection, programs: dict[int, VelaProgram]
               ) -> list[DelegateWiring]:
    """The wiring of the first method's Ethos-U delegates; refused when the CPU computes a
    delegate's inputs (the device's inputs to it cannot be rebuilt on the host)."""
    method = inspection.program.methods[0]
    counts = [(len(p.inputs), len(p.outputs)) for _, p in sorted(programs.items())]
    try:
        wirings = delegate_wiring(method, counts)
    except WiringError as error:
        raise OrchestratorError(
            f"{inspection.path} cannot be verified on the host: {error}, so the inputs the "
            f"device gave the delegate are not known here",
            f"run it on the device only: invoke run --pte {inspection.path}") from error
    if not any(edge is not None for wiring in wirings for edge in wiring.outputs):
        raise OrchestratorError(
            f"{inspection.path} cannot be verified on the host: no Ethos-U delegate output "
            f"reaches a method output directly or through one dequantize node",
            f"run it on the device only: invoke run --pte {inspection.path}")
    return wirings


def subject_of(path: Path, asked_target: str, work: Scratch) -> Subject:
    """Inspect, refuse what cannot be checked, and gather what every lane needs."""
    inspection = inspect_artifact(path)
    refuse_unrunnable(inspection)
    refuse_nothing_to_check(inspection)
    target = target_of(inspection, asked_target, "verify")
    npu = Npu.for_target_name(target)
    method = inspection.program.methods[0]
    programs = {index: parse_blob(d.data) for index, d in enumerate(method.delegates)
                if is_ethosu(d.backend)}
    wirings = wirings_of(inspection, programs)
    if inspection.bundle is not None:
        suite = suite_for(inspection.bundle, method.name)
        sets, source = case_inputs(suite), f"the bundle's {len(suite.cases)} test cases"
    else:
        sets = [input_tensors(import_artifact(inspection, work))]
        source = "one seeded input set (the .pte brings none)"
    return Subject(inspection, target, npu, programs, wirings, sets, source)


def lane_simulators(target: str) -> list[str]:
    """Every simulator that runs `target`'s NPU: its own (an FVP) and those with the
    NPU model (QEMU)."""
    catalogue = load_catalogue()
    placed = catalogue.target(target)
    names = [sim.name for sim in placed.simulators]
    names += [sim.name for sim in catalogue.simulators.values()
              if placed.npu_model_on(sim) is not None and sim.name not in names]
    return names


def run_lane(subject: Subject, simulator: str, request: RunRequest,
             work: Scratch) -> dict[str, Any]:
    """One lane: the artifact over every input set on `simulator`, then the host's model on
    the same inputs; refused (with the reason) when the lane cannot run here."""
    started = time.perf_counter()
    lane = replace(request, pte=str(subject.inspection.path), target=subject.target,
                   sim=simulator, app="pte")
    try:
        run, _ = prepare_artifact_run(lane, work)
    except OrchestratorError as error:
        return {"simulator": simulator, "status": "refused", "reason": error.cause,
                "next": error.next_step, "exact": None, "checks": []}
    session = run_session(run, SessionLimits(run.request.timeout_s, run.request.idle_timeout_s,
                                             SECONDS_PER_CASE), subject.input_sets)
    simulated = time.perf_counter()
    checks: list[HostCheck] = []
    ambiguous = 0
    for sample in session.samples:
        if sample.index >= len(subject.input_sets):
            continue
        device = [tensor.to_numpy() for _, tensor in sorted(sample.tensors.items())]
        found, count = check_input_set(sample.index, subject.input_sets[sample.index], device,
                                       subject.wirings, subject.programs, subject.npu)
        checks += found
        ambiguous += count
    ran = len(session.samples)
    exact = bool(checks) and ran == len(subject.input_sets) and all(c.exact for c in checks)
    return {"simulator": simulator, "status": "checked", "exact": exact,
            "executor": run.plan.placement.npu_executor,
            "cases": len(subject.input_sets), "ran": ran, "run_status": session.result.status.value,
            "run_dir": str(run.run_dir), "ambiguous_input_elements": ambiguous,
            "checks": [check.to_json() for check in checks],
            "seconds": {"simulate": round(simulated - started, 3),
                        "host": round(time.perf_counter() - simulated, 3)}}


def verify_artifact(path: Path, request: RunRequest, work: Scratch) -> dict[str, Any]:
    """`invoke verify --pte FILE`: the document of every lane (exact only when at least one
    lane was checked and every checked lane agrees with the host bit for bit)."""
    started = time.perf_counter()
    subject = subject_of(path, request.target, work)
    lanes = [run_lane(subject, simulator, request, work)
             for simulator in lane_simulators(subject.target)]
    checked = [lane for lane in lanes if lane["status"] == "checked"]
    inspection = subject.inspection
    return {"exact": bool(checked) and all(lane["exact"] for lane in checked),
            "model": str(inspection.path), "target": subject.target,
            "artifact": {"file": str(inspection.path), "sha256": inspection.sha256,
                         "kind": inspection.kind},
            "npu": {"executor": MODEL_NAME, "config": subject.npu.label()},
            "reference": REFERENCE, "inputs": subject.inputs_from,
            "delegates": len(subject.programs),
            "versions": {"executorch_runtime": inspection.runtime, MODEL_NAME: model_version()},
            "lanes": lanes,
            "checks": [dict(check, lane=lane["simulator"]) for lane in checked
                       for check in lane["checks"]],
            "seconds": {"total": round(time.perf_counter() - started, 3)}}
