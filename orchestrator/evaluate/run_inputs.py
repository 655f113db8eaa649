"""`invoke run --inputs FILE|DIR`: the user's input sets instead of the compile stage's, in
one sample session; the RunResult passes only when every input set ran and matched its own
exact reference bit for bit. The per-sample detail is the run's evaluation.json (the same
document `invoke evaluate` writes); a regress cell with `inputs` runs the same way, so a data
set is part of the cell and its accuracy summary (`accuracy.dataset`) is baselined."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.command_line import invoke_line
from orchestrator.comparison.mismatch import output_mismatch
from orchestrator.errors import OrchestratorError
from orchestrator.evaluate.evaluate import (
    Prepared,
    checked_inputs,
    evaluation_document,
    plan_data,
    refuse_without_semihosting,
    score_session,
    session_plan,
    start_session,
)
from orchestrator.evaluate.report import HTML_FILE, JSON_FILE, write_reports
from orchestrator.evaluate.scoring import SampleScore
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.protocol import ParsedStream
from orchestrator.results import Accuracy, Comparison, RunResult
from orchestrator.runner.firmware import RunnerBuild, RunnerOptions
from orchestrator.sim.plan import RunPlan

if TYPE_CHECKING:
    from orchestrator.aot.key import CompileRequest
    from orchestrator.aot.products import Product
    from orchestrator.options.run import RunRequest

DATASET_KEYS = ("requested", "completed", "exact", "top1_agreement", "top5_agreement",
                "snr_db_mean", "snr_db_min", "accuracy")


def evaluation_request(request: RunRequest) -> EvaluateRequest:
    """The evaluation a run with --inputs amounts to (no labels file needed, no calibration
    split: the run's compile choices as they are)."""
    assert request.model is not None and request.compile.inputs is not None
    return EvaluateRequest(model=request.model, target=request.target,
                           data=request.compile.inputs, sim=request.sim,
                           timeout_s=request.timeout_s, idle_timeout_s=request.idle_timeout_s,
                           build_type=request.build_type, compile=request.compile,
                           runner=request.runner, run_id=request.run_id)


def compile_request_for(request: RunRequest, product: Product) -> CompileRequest:
    """The compile request behind `product`: the run's own choices when they made it (its
    calibration files included), else what the product's manifest records."""
    from orchestrator.aot.api import request_for
    from orchestrator.aot.host_reference import compile_request_of
    from orchestrator.runner.model_run import model_choices

    assert request.model is not None
    try:
        own = request_for(request.model, request.target, model_choices(request.compile))
    except OrchestratorError:      # a regress cell names its model by short name
        return compile_request_of(product)
    return own if own.key() == product.key else compile_request_of(product)


def run_with_inputs(plan: RunPlan, run_dir: Path, run_id: str, product: Product,
                    build: RunnerBuild, request: RunRequest, options: RunnerOptions
                    ) -> RunResult:
    """The compiled model and built runner over the request's input sets in one session
    (a misfit input set is refused before anything runs); judged per input set."""
    from orchestrator.parse.protocol_values import outputs

    evaluation = evaluation_request(request)
    rerun = invoke_line("run", target=request.target, model=request.model,
                        inputs=evaluation.data)
    refuse_without_semihosting(plan.simulator, rerun)
    data = plan_data(replace(evaluation, compile=replace(evaluation.compile, inputs=None,
                                                         calibration=None)))
    prepared = Prepared(data, plan, product, build, options,
                        *checked_inputs(data, compile_request_for(request, product), product,
                                        rerun), rerun)
    session_plan_ = replace(session_plan(evaluation, run_dir, prepared), run_id=run_id)
    session = start_session(prepared, session_plan_)
    scores = score_session(session, prepared.data, prepared.references, prepared.product)
    document = evaluation_document(evaluation, prepared.data, session, scores,
                                   prepared.product, prepared.host)
    write_reports(run_dir, document, scores)
    result = session.result
    result.model = request.model
    if session.samples:
        result.outputs = outputs(ParsedStream(tensors=session.samples[0].tensors))
    result.target.options.update({"product": str(product.directory),
                                  "inputs": evaluation.data,
                                  "input_sets": len(prepared.device_sets)})
    result.artifacts.update({"evaluation": str(run_dir / JSON_FILE),
                             "evaluation_report": str(run_dir / HTML_FILE)})
    result.accuracy = Accuracy(dataset={key: document["summary"][key] for key in DATASET_KEYS})
    return judged(result, scores, document, product.reference_kind, rerun)


def judged(result: RunResult, scores: list[SampleScore], document: dict[str, Any],
           reference: str, rerun: str) -> RunResult:
    """Exact only if every input set ran and each matched its exact reference; the first
    that did not is named."""
    stopped = document["stopped"]
    not_exact = [score for score in scores if score.exact is False]
    result.comparison = Comparison(reference=reference,
                                   passed=not not_exact and stopped is None,
                                   exact=(not not_exact and stopped is None)
                                   if reference == "exact" else None,
                                   mismatches=len(not_exact))
    if stopped is not None:
        result.reason = (f"session stopped at input set {stopped['stopped_at']} "
                         f"({stopped['file']}) after {stopped['completed']} finished: "
                         f"{result.reason}")
        return result
    if not not_exact:
        return result
    first = not_exact[0]
    summary = (f"{len(not_exact)} of {len(scores)} input sets not bit-exact; first: input set "
               f"{first.index} ({first.file}): {first.mismatch}")
    return output_mismatch(result, summary, summary,
                           f"the target computed something else than the compiled program: "
                           f"{rerun}, then read evaluation.json",
                           {"not_exact": [s.index for s in not_exact]})
