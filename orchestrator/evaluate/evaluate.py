"""`invoke evaluate`: compile (cached), build the runner (cached), check every input set
fits the model, compute each one's host references, run them all in one simulator session,
score them and write evaluation.json / evaluation.html beside the session's transcript."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.models.sources import SERIALIZED, tensor_files
from orchestrator.comparison.accuracy import gate_failures
from orchestrator.evaluate.dataset import (
    InputShape,
    calibration_files,
    data_files,
    load_input_sets,
    preprocess_hook,
    read_labels,
)
from orchestrator.evaluate.host_references import host_references
from orchestrator.evaluate.scoring import SampleScore, score_sample, summarize
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.progress import step
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.results.record import write_result
from orchestrator.runner.model_run import (
    ModelRun,
    build_model_run,
    model_choices,
    runner_options_for,
)
from orchestrator.runner.reference_check import device_arrays
from orchestrator.runner.sample_session import (
    Session,
    SessionLimits,
    device_inputs,
    interrupted_session,
    run_session,
)
from orchestrator.sim.plan import plan_request
from orchestrator.targets import Simulator

if TYPE_CHECKING:
    from orchestrator.aot.key import CompileRequest
    from orchestrator.aot.products import Product
    from orchestrator.runner.areas import InputTensor

LABELS_DEFAULT = "labels.txt"


@dataclass(frozen=True)
class DataPlan:
    """The evaluated files, their labels and the calibration files left after the split;
    `source` is the data set as given, `overlap_allowed` whether it may calibrate too."""

    source: str
    files: tuple[Path, ...]
    labels: list[int] | None
    calibration: tuple[Path, ...] = ()
    overlap_allowed: bool = False


def plan_data(request: EvaluateRequest) -> DataPlan:
    """Files (sorted, first --limit), labels, and calibration without the evaluated files."""
    given = request.compile.inputs
    if given and given != request.data:
        raise OrchestratorError("invoke evaluate reads its input sets from --data, so --inputs "
                                "does not apply", f"invoke evaluate --data {given}")
    data = input_sets_of(request.data, request.labels, request.limit)
    calibration = calibration_files(tensor_files(request.compile.calibration, "calibration"),
                                    data.files, request.calibration_overlap)
    return replace(data, calibration=calibration, overlap_allowed=request.calibration_overlap)


def input_sets_of(source: str, labels: str | None = None, limit: int | None = None) -> DataPlan:
    """The data set's files (sorted, the first `limit`) and their labels (`labels`, else the
    data directory's labels.txt if present); no calibration split."""
    labels_path = _labels_path(source, labels)
    files = data_files(source, labels_path)[:limit]
    return DataPlan(source, files, read_labels(labels_path, files) if labels_path else None)


def _labels_path(source: str, labels: str | None) -> Path | None:
    if labels:
        path = Path(labels).expanduser().resolve()
        if not path.is_file():
            raise OrchestratorError(f"labels file {labels} does not exist",
                                    "check the --labels path")
        return path
    default = Path(source).expanduser().resolve() / LABELS_DEFAULT
    return default if default.is_file() else None


def compile_product(request: EvaluateRequest, data: DataPlan,
                    work: Scratch) -> tuple[CompileRequest, Product]:
    """(compile request, product): the model calibrated on the split's calibration files; a
    model saved without example inputs (torch.save) takes the data set's first input set as
    its example."""
    from orchestrator.aot.api import compile_request, request_for

    choices = replace(model_choices(request.compile), calibration=None)
    compile = request_for(request.model_or_default, request.target, choices)
    if compile.model.kind == SERIALIZED and not compile.inputs:
        compile = replace(compile, inputs=data.files[:1])
    calibration = data.calibration
    if calibration:
        if not compile.options.quantize:
            raise OrchestratorError("calibration data only applies to a quantized compile",
                                    "drop --calibration or --quantize none")
        compile = replace(compile, calibration=calibration)
    with step(f"compile {request.model_or_default} for {request.target}"):
        return compile, compile_request(compile, work)


def model_inputs(product: Product) -> list[InputShape]:
    """What the compiled program takes, input by input."""
    return [InputShape(t.dtype, tuple(t.shape), t.name) for t in product.inputs]


# the evaluation document's note when the product has an exact program (as it always said)
HOST_PROGRAM = ("lowered again from the compile request, checked against the product's "
                "reference_exact")


@dataclass(frozen=True)
class Prepared:
    """Everything a session needs, checked and built: the data, the model run (plan,
    compiled product, runner), where the exact references come from, and each input set as
    the device takes it."""

    data: DataPlan
    run: ModelRun
    host_program: str | None
    references: list[tuple[list[Any] | None, list[Any]]]   # (exact, float) per input set
    device_sets: list[list[InputTensor]]


def prepare(request: EvaluateRequest, work: Scratch) -> Prepared:
    """Compile (cached), refuse input sets that do not fit, compute every input set's host
    references, build the runner (cached): nothing has been simulated yet."""
    if not request.target:
        raise OrchestratorError("invoke evaluate needs --target (only --pte reads the target "
                                "from the file)", "invoke evaluate --target <target> --model "
                                "<model> --data <dir> (invoke targets lists them)")
    request = replace(request, model=request.model_or_default)
    rerun = invoke_line("evaluate", model=request.model, target=request.target,
                        data=request.data)
    data = plan_data(request)
    plan = plan_request(work, request, rerun=rerun, needs_data=True)
    refuse_without_semihosting(plan.simulator, rerun)
    options = runner_options_for(plan.target, request)
    compile, product = compile_product(request, data, work)
    checked = checked_inputs(data, compile, product, rerun)   # before building: fail fast
    run = build_model_run(work, request, plan, options, product, rerun)
    return Prepared(data, run, *checked)


def refuse_without_semihosting(simulator: Simulator, rerun: str) -> None:
    """A sample session reads its input sets through semihosting."""
    if not simulator.capabilities.semihosting:
        raise OrchestratorError(f"simulator {simulator.name} has no semihosting, which a sample "
                                "session reads its input sets through",
                                f"{rerun} --sim qemu (or an FVP)")


def checked_inputs(data: DataPlan, compile: CompileRequest, product: Product, rerun: str
                   ) -> tuple[str | None, list[tuple[list[Any] | None, list[Any]]],
                              list[list[InputTensor]]]:
    """(the host program's note, (exact, float) references per input set, the input sets as
    the device takes them); the first input set that does not fit the model is refused in
    one line. References already computed for an input set's bytes are read back."""
    input_sets = load_input_sets(data.files, model_inputs(product),
                                 preprocess_hook(compile.model), rerun)
    with step(f"host references for {len(input_sets)} input sets"):
        references = host_references(compile, product, input_sets)
    orders = [tuple(t.dim_order) for t in product.inputs]
    return (HOST_PROGRAM if product.reference_exact else None, references,
            [device_inputs(arrays, orders) for arrays in input_sets])


def session_limits(request: EvaluateRequest) -> SessionLimits:
    """The session's time limits: --timeout, --idle-timeout, --per-sample."""
    return SessionLimits(request.timeout_s, request.idle_timeout_s, request.per_sample_s)


def start_session(prepared: Prepared, limits: SessionLimits,
                  input_sets: list[list[InputTensor]] | None = None) -> Session:
    """One simulator session over `input_sets` (default: every prepared input set)."""
    return run_session(prepared.run, limits,
                       prepared.device_sets if input_sets is None else input_sets)


def evaluate(request: EvaluateRequest, work: Scratch) -> dict[str, Any]:
    """The whole evaluation; the report document (also written to the run directory). A
    session stopped by SIGINT/SIGTERM is recorded with the samples it finished before the
    interrupt goes on."""
    prepared = prepare(request, work)
    started = time.monotonic()
    try:
        session = start_session(prepared, session_limits(request))
    except KeyboardInterrupt:
        record(prepared, interrupted_session(prepared.run, time.monotonic() - started))
        raise
    return record(prepared, session)


def record(prepared: Prepared, session: Session) -> dict[str, Any]:
    """Score the session's samples; write evaluation.json/.html and the session's
    result.json to the run directory; the evaluation document."""
    from orchestrator.evaluate.report import write_reports

    scores = score_session(session, prepared.data, prepared.references, prepared.run.product)
    document = evaluation_document(prepared.run, prepared.data, session, scores,
                                   prepared.host_program)
    write_reports(prepared.run.run_dir, document, scores)
    write_result(prepared.run.run_dir, session.result)
    return document


def score_session(session: Session, data: DataPlan, references: list[Any],
                  product: Product) -> list[SampleScore]:
    """A score per finished sample, in data set order."""
    out_orders = [tuple(r.dim_order) for r in product.reference_float]
    quantization = product.exact_record.output_quantization
    step_size = quantization[0]["scale"] if quantization and quantization[0] else None
    scores = []
    for sample in session.samples:
        exact, floating = references[sample.index]
        device = device_arrays(sample.tensors, out_orders)
        label = data.labels[sample.index] if data.labels else None
        scores.append(score_sample(sample.index, data.files[sample.index].name, label,
                                   sample.cycles, device, exact, floating, step_size,
                                   [r.name for r in product.reference_float]))
    return scores


def stop_report(session: Session, data: DataPlan) -> dict[str, Any] | None:
    """Where a session that did not finish stopped, and why (None: it finished)."""
    done = len(session.samples)
    if done == len(data.files) and session.result.status.value == "pass":
        return None
    at = data.files[done].name if done < len(data.files) else None
    return {"completed": done, "stopped_at": done, "file": at,
            "status": session.result.status.value, "reason": session.result.reason,
            "next_step": session.result.classification.next_step
            if session.result.classification else None}


def evaluation_document(run: ModelRun, data: DataPlan, session: Session,
                        scores: list[SampleScore], host_program: str | None
                        ) -> dict[str, Any]:
    """The evaluation result: summary, every sample, the session's RunResult, versions."""
    from orchestrator.aot.key import tool_versions
    from orchestrator.evaluate.scoring import per_class

    product, settings = run.product, run.request.runner
    summary = summarize(scores, len(data.files))
    session_result = session.result.to_dict()
    stopped = stop_report(session, data)
    exact_all = summary["exact"] == len(data.files) and stopped is None
    gates = gate_failures(scores, settings.thresholds, "sample")
    return {
        "schema": "ethosu-orchestrator/evaluation/1",
        "run_id": run.run_id, "model": run.request.model, "target": run.request.target,
        "data": str(Path(data.source).expanduser().resolve()),
        "product": str(product.directory),
        "reference": product.reference_kind,
        "exact_reference": product.exact_record.to_json()["status"],
        "calibration": {"files": len(data.calibration),
                        "overlap_allowed": data.overlap_allowed,
                        "source": "given" if data.calibration else "model default"},
        "passed": (exact_all if product.reference_kind == "exact" else stopped is None)
        and not gates,
        "gates": gates,
        "summary": summary, "per_class": per_class(scores),
        "stopped": stopped,
        "session_seconds": round(session.seconds, 3),
        "seconds_per_sample": round(session.seconds / max(1, len(scores)), 4),
        "samples": [vars(score) for score in scores],
        "session": session_result,
        "versions": {**tool_versions(), **session_result.get("versions", {})},
        "host_program": host_program,
    }
