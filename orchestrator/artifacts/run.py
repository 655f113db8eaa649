"""`invoke run --pte FILE`: a .pte or .bpte made anywhere, run with no compile. The target
comes from the file (a --target that differs is refused, as the Ethos-U driver would refuse
the command stream); the runner is built (or reused) for the program's kernels and memory
mode; the .pte is loaded into the model area by the simulator, not linked in. A .bpte runs
every test case of its suite in one sample session, each judged with upstream's rule."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.artifacts.bundle import Bundle, TestSuite
from orchestrator.artifacts.bundle_check import (
    UPSTREAM_ATOL,
    UPSTREAM_RTOL,
    OutputCheck,
    check_case,
)
from orchestrator.artifacts.imported import import_artifact
from orchestrator.artifacts.inspection import Inspection, inspect_artifact
from orchestrator.comparison.mismatch import output_mismatch
from orchestrator.comparison.thresholds import Thresholds
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options import RunRequest
from orchestrator.parse.protocol_values import outputs
from orchestrator.protocol import ParsedStream
from orchestrator.results import Comparison, RunResult
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import InputTensor
from orchestrator.runner.model_run import (
    ModelRun,
    build_model_run,
    runner_options_for,
    simulate_model,
)
from orchestrator.runner.reference_check import device_arrays
from orchestrator.runner.sample_session import SessionLimits, run_session
from orchestrator.sim.plan import plan_request

CPU_TARGET = "cortex-m55"          # a program with no Ethos-U delegate, when none is asked
BUNDLE_FILE = "bundle_check.json"
SECONDS_PER_CASE = 10.0


def refuse_unrunnable(inspection: Inspection) -> None:
    """One sentence naming every reason the pinned runtime cannot run the artifact."""
    if inspection.reasons:
        raise OrchestratorError(
            f"{inspection.path} cannot run on this tool's ExecuTorch {inspection.runtime} "
            f"runtime: {'; '.join(inspection.reasons)}",
            f"invoke inspect {inspection.path} (re-export it for the Ethos-U backend and "
            f"the kernels of ExecuTorch {inspection.runtime})")


def target_of(inspection: Inspection, asked: str, command: str = "run") -> str:
    """The file's target; a different --target is refused (the driver checks the command
    stream's OPTIMIZER_CONFIG against the NPU before it runs anything); `command` is the
    invoke task the next step repeats."""
    if not inspection.targets:
        return asked or CPU_TARGET
    compiled = inspection.targets[0]
    if asked and asked != compiled:
        raise OrchestratorError(
            f"{inspection.path} was compiled for {compiled}, not {asked} (the Ethos-U "
            f"driver refuses a command stream compiled for another NPU configuration)",
            f"invoke {command} --pte {inspection.path} --target {compiled}")
    return compiled


def memory_mode_of(inspection: Inspection, asked: str | None) -> str | None:
    """The memory mode the delegates were compiled with (the runner's memory plan follows
    it); a different --memory-mode is refused."""
    modes = sorted({d.memory_mode for d in inspection.ethosu if d.memory_mode})
    if asked and modes and asked not in modes:
        raise OrchestratorError(
            f"{inspection.path} was compiled for memory mode {modes[0]}, not {asked}",
            f"invoke run --pte {inspection.path} --memory-mode {modes[0]}")
    return modes[0] if modes else asked


def prepare_artifact_run(request: RunRequest, work: Scratch) -> tuple[ModelRun, Inspection]:
    """Inspect, refuse what cannot run, import (cached by content), plan and build the
    runner (cached): nothing has been simulated yet."""
    assert request.pte is not None
    inspection = inspect_artifact(Path(request.pte))
    refuse_unrunnable(inspection)
    target = target_of(inspection, request.target)
    compile_choices = replace(request.compile,
                              memory_mode=memory_mode_of(inspection, request.compile.memory_mode))
    request = replace(request, target=target, compile=compile_choices,
                      model=inspection.path.stem)
    product = import_artifact(inspection, work)
    rerun = invoke_line("run", pte=request.pte, target=target, sim=request.sim)
    plan = plan_request(work, request, rerun=invoke_line("run", pte=request.pte, target=target),
                        needs_data=True)
    started = utc_now()
    options = runner_options_for(plan.target, request)
    return build_model_run(work, request, plan, options, product, rerun, started), inspection


ORIGIN = "given (made outside this tool; not compiled here)"


def artifact_record(inspection: Inspection) -> dict[str, Any]:
    """What a result records of the artifact it ran: file, sha256, kind, targets, origin."""
    return {"file": str(inspection.path), "sha256": inspection.sha256,
            "kind": inspection.kind, "targets": list(inspection.targets), "origin": ORIGIN}


def run_pte(request: RunRequest, work: Scratch, run_dir: Path | None = None) -> RunResult:
    """`invoke run --pte FILE`: run the artifact; a .pte once with its generated inputs,
    a .bpte over every test case of its suite (`run_dir`: where it writes, a regress
    cell's directory; else scratch/runs/<run id>/)."""
    run, inspection = prepare_artifact_run(request, work)
    if run_dir is not None:
        run = replace(run, run_dir=run_dir)
    if inspection.bundle is None:
        result = simulate_model(run)
        result.target.options["inputs"] = "generated (seeded, the .pte brings none)"
    else:
        result = run_bundle(run, inspection, inspection.bundle, request.runner.thresholds)
    result.model = str(inspection.path)
    result.target.options["artifact"] = artifact_record(inspection)
    return result


def tolerances(thresholds: Thresholds) -> tuple[float, float]:
    """(atol, rtol): upstream's runner defaults unless --atol/--rtol were given."""
    atol = UPSTREAM_ATOL if thresholds.atol == Thresholds.atol else thresholds.atol
    rtol = UPSTREAM_RTOL if thresholds.rtol == Thresholds.rtol else thresholds.rtol
    return atol, rtol


def suite_for(bundle: Bundle, method: str) -> TestSuite:
    """The test suite of the method the runner runs."""
    for suite in bundle.suites:
        if suite.method == method:
            return suite
    raise OrchestratorError(f"the bundle has no test suite for method {method}",
                            "bundle test cases for the method the program runs")


def case_inputs(suite: TestSuite) -> list[list[InputTensor]]:
    """Every test case's inputs as the device takes them (raw bytes as the bundle stores
    them)."""
    return [[InputTensor(v.dtype, v.shape, v.data) for v in case.inputs] for case in suite.cases]


def run_bundle(run: ModelRun, inspection: Inspection, bundle: Bundle,
               thresholds: Thresholds) -> RunResult:
    """Every test case in one session, each output judged against the bundle's expected
    outputs (the exporter's reference: usually PyTorch's, not a device's)."""
    method = inspection.program.methods[0]
    suite = suite_for(bundle, method.name)
    session = run_session(run, SessionLimits(run.request.timeout_s, run.request.idle_timeout_s,
                                             SECONDS_PER_CASE), case_inputs(suite))
    if session.samples:
        session.result.outputs = outputs(ParsedStream(tensors=session.samples[0].tensors))
    atol, rtol = tolerances(thresholds)
    orders = [spec.dim_order for spec in method.outputs]
    checks: list[OutputCheck] = []
    for sample in session.samples:
        case = suite.cases[sample.index] if sample.index < len(suite.cases) else None
        if case is None:
            continue
        checks += check_case(sample.index, device_arrays(sample.tensors, orders),
                             case.expected_outputs, atol, rtol, method.output_quantization)
    return judged_bundle(session.result, checks, len(suite.cases), len(session.samples),
                         atol, rtol, run)


def judged_bundle(result: RunResult, checks: list[OutputCheck], cases: int, ran: int,
                  atol: float, rtol: float, run: ModelRun) -> RunResult:
    """The bundle's verdict on the run: passed only when every case ran and every output
    was within the rule; the per-output statistics in bundle_check.json."""
    failed = [c for c in checks if not c.passed]
    passed = not failed and ran == cases
    errors = [c.max_abs_error for c in checks]
    result.comparison = Comparison(reference="bundled", atol=atol, rtol=rtol, passed=passed,
                                   exact=passed if atol == rtol == 0 else None,
                                   mismatches=sum(c.mismatches for c in checks),
                                   max_absolute_error=max(errors, default=None))
    path = run.run_dir / BUNDLE_FILE
    path.write_text(json.dumps({"cases": cases, "ran": ran, "atol": atol, "rtol": rtol,
                                "reference": "the bundle's expected outputs (whatever the "
                                             "exporter stored: usually PyTorch's float or "
                                             "fake-quantized outputs, not a device's)",
                                "outputs": [vars(c) | {"passed": c.passed} for c in checks]},
                               indent=2) + "\n")
    result.artifacts["bundle_check"] = str(path)
    result.target.options["bundle_cases"] = {"cases": cases, "ran": ran}
    if ran < cases:
        return output_mismatch(result, f"only {ran} of {cases} bundled test cases ran",
                               f"only {ran} of {cases} bundled test cases ran",
                               f"{run.rerun}, then read the transcript")
    if not failed:
        return result
    first = failed[0]
    why = first.shape_error or (f"{first.mismatches} of {first.elements} elements outside "
                                f"atol {atol} + rtol {rtol}")
    summary = (f"{len({c.case for c in failed})} of {cases} bundled test cases fail; first: "
               f"case {first.case} output {first.output}: {why}")
    return output_mismatch(result, summary, summary,
                           f"read {path}; loosen with --atol/--rtol if the bundle's reference "
                           f"is a float model's")
