"""`invoke evaluate --pte FILE --data DIR`: a ready artifact over a data set in one simulator
session, no compile. The device's first output is classified per input set and scored against
the labels; an artifact brings no reference of ours (no float model, no exact program), so no
sample is judged exact and no agreement with a float model is claimed. The document (the
evaluation schema of `invoke evaluate`) records the artifact's digest and where it came from."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from orchestrator.artifacts.run import artifact_record, prepare_artifact_run
from orchestrator.comparison.accuracy import predicted_class
from orchestrator.evaluate.dataset import InputShape, load_input_sets
from orchestrator.evaluate.evaluate import (
    input_sets_of,
    refuse_without_semihosting,
    session_limits,
    stop_report,
)
from orchestrator.evaluate.report import write_reports
from orchestrator.evaluate.scoring import SampleScore, per_class, summarize
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.paths import Scratch
from orchestrator.options import RunRequest
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.results.record import write_result
from orchestrator.runner.reference_check import device_arrays
from orchestrator.runner.sample_session import Session, device_inputs, run_session

REFERENCE = "nothing (an artifact brings no reference; labels score it)"


def run_request_of(request: EvaluateRequest) -> RunRequest:
    """The `run --pte` request of an evaluation (its target, simulator, limits, runner)."""
    return RunRequest(pte=request.pte, target=request.target, sim=request.sim,
                      timeout_s=request.timeout_s, idle_timeout_s=request.idle_timeout_s,
                      build_type=request.build_type, runner=request.runner,
                      compile=request.compile, app="pte")


def scores_of(session: Session, files: tuple[Path, ...], labels: list[int] | None,
              orders: list[tuple[int, ...]]) -> list[SampleScore]:
    """Per finished sample: the device's class of output 0 and the label."""
    scores = []
    for sample in session.samples:
        device = device_arrays(sample.tensors, orders)
        scores.append(SampleScore(index=sample.index, file=files[sample.index].name,
                                  label=labels[sample.index] if labels else None,
                                  cycles=sample.cycles,
                                  device_class=predicted_class(device[0]) if device else None))
    return scores


def evaluate_artifact(request: EvaluateRequest, work: Scratch) -> dict[str, Any]:
    """The evaluation document of the artifact over the data set (also written, with its
    HTML report, to the run directory)."""
    assert request.pte is not None
    run, inspection = prepare_artifact_run(run_request_of(request), work)
    rerun = invoke_line("evaluate", pte=request.pte, data=request.data)
    refuse_without_semihosting(run.plan.simulator, rerun)
    data = input_sets_of(request.data, request.labels, request.limit)
    method = inspection.program.methods[0]
    tensors = [spec for spec in method.inputs if spec.kind == "tensor"]
    wanted = [InputShape(spec.dtype, spec.shape, f"inputs[{index}]")
              for index, spec in enumerate(tensors)]
    arrays = load_input_sets(data.files, wanted, None, rerun)
    device_sets = [device_inputs(a, [spec.dim_order for spec in tensors]) for a in arrays]
    started = time.monotonic()
    session = run_session(run, session_limits(request), device_sets)
    seconds = time.monotonic() - started
    scores = scores_of(session, data.files, data.labels,
                       [spec.dim_order for spec in method.outputs])
    stopped = stop_report(session, data)
    result = session.result.to_dict()
    document: dict[str, Any] = {
        "schema": "ethosu-orchestrator/evaluation/1",
        "run_id": run.run_id, "model": str(inspection.path), "target": run.request.target,
        "data": str(Path(data.source).expanduser().resolve()),
        "artifact": artifact_record(inspection),
        "product": str(run.product.directory), "reference": REFERENCE,
        "exact_reference": None, "passed": stopped is None, "gates": [],
        "summary": summarize(scores, len(data.files)), "per_class": per_class(scores),
        "stopped": stopped, "session_seconds": round(seconds, 3),
        "seconds_per_sample": round(seconds / max(1, len(scores)), 4),
        "samples": [vars(score) for score in scores], "session": result,
        "versions": {"executorch_runtime": inspection.runtime, **result.get("versions", {})},
        "host_program": None,
    }
    write_reports(run.run_dir, document, scores)
    write_result(run.run_dir, session.result)
    return document
