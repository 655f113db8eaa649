"""`invoke run --inputs FILE|DIR`: the user's input sets instead of the compile stage's, in
one sample session; the RunResult passes only when every input set ran and matched its own
exact reference bit for bit. The per-sample detail is the run's evaluation.json (the same
document `invoke evaluate` writes); a regress cell with `inputs` runs the same way, so a data
set is part of the cell and its accuracy summary (`accuracy.dataset`) is baselined."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from orchestrator.comparison.mismatch import output_mismatch
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.protocol import ParsedStream
from orchestrator.results import Accuracy, Comparison, RunResult
from orchestrator.runner.model_run import (
    ModelRun,
    model_choices,
    prepare_model_run,
    rerun_of,
    simulate_model,
)

if TYPE_CHECKING:
    from orchestrator.aot.key import CompileRequest
    from orchestrator.aot.products import Product
    from orchestrator.evaluate.scoring import SampleScore
    from orchestrator.options.run import RunChoices, RunRequest

DATASET_KEYS = ("requested", "completed", "exact", "top1_agreement", "top5_agreement",
                "snr_db_mean", "snr_db_min", "accuracy")


def compile_request_for(request: RunChoices, product: Product) -> CompileRequest:
    """The compile request behind `product`: the run's own choices when they made it (its
    calibration files included), else what the product's manifest records."""
    from orchestrator.aot.api import request_for
    from orchestrator.aot.host_reference import compile_request_of

    assert request.model is not None
    try:
        own = request_for(request.model, request.target, model_choices(request.compile))
    except OrchestratorError:      # a regress cell names its model by short name
        return compile_request_of(product)
    return own if own.key() == product.key else compile_request_of(product)


def run_model(request: RunRequest, work: Scratch) -> RunResult:
    """`invoke run`'s runner app: the model run prepared once, then simulated with the
    compile stage's inputs or, with --inputs, over the user's input sets in one session."""
    return run_prepared(prepare_model_run(request, work))


def run_prepared(run: ModelRun) -> RunResult:
    """A prepared model run (`invoke run` or a regress cell): --inputs decides whether it
    runs once or over the given input sets."""
    return run_with_inputs(run) if run.request.compile.inputs else simulate_model(run)


def run_with_inputs(run: ModelRun) -> RunResult:
    """The compiled model and built runner over the request's input sets in one session
    (a misfit input set is refused before anything runs); judged per input set. The data
    set machinery is imported here only: a plain run needs none of it."""
    from orchestrator.evaluate.evaluate import (
        Prepared,
        checked_inputs,
        evaluation_document,
        input_sets_of,
        refuse_without_semihosting,
        score_session,
        start_session,
    )
    from orchestrator.evaluate.report import HTML_FILE, JSON_FILE, write_reports
    from orchestrator.options.evaluate import DEFAULT_SECONDS_PER_SAMPLE
    from orchestrator.parse.protocol_values import outputs
    from orchestrator.runner.sample_session import SessionLimits

    inputs = run.request.compile.inputs
    assert inputs is not None
    run = replace(run, rerun=rerun_of(run.request, inputs))
    refuse_without_semihosting(run.plan.simulator, run.rerun)
    data = input_sets_of(inputs)
    prepared = Prepared(data, run, *checked_inputs(data, compile_request_for(run.request,
                                                                             run.product),
                                                   run.product, run.rerun))
    request = run.request
    session = start_session(prepared, SessionLimits(request.timeout_s, request.idle_timeout_s,
                                                    DEFAULT_SECONDS_PER_SAMPLE))
    scores = score_session(session, data, prepared.references, run.product)
    document = evaluation_document(run, data, session, scores, prepared.host_program)
    write_reports(run.run_dir, document, scores)
    result = session.result
    result.model = request.model
    if session.samples:
        result.outputs = outputs(ParsedStream(tensors=session.samples[0].tensors))
    result.target.options.update({"product": str(run.product.directory),
                                  "inputs": inputs,
                                  "input_sets": len(prepared.device_sets)})
    result.artifacts.update({"evaluation": str(run.run_dir / JSON_FILE),
                             "evaluation_report": str(run.run_dir / HTML_FILE)})
    result.accuracy = Accuracy(dataset={key: document["summary"][key] for key in DATASET_KEYS})
    return judged(result, scores, document, run.product.reference_kind, run.rerun)


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
