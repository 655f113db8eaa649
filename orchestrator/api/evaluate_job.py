"""`evaluate`: a data set through one simulator session, scored per sample."""

from __future__ import annotations

from orchestrator.api.reports import EvaluateReport
from orchestrator.evaluate.evaluate import evaluate
from orchestrator.foundation.paths import scratch
from orchestrator.options.evaluate import EvaluateRequest


def evaluate_with(request: EvaluateRequest) -> EvaluateReport:
    """Run the evaluation (of a model compiled here, or of a ready artifact with `pte`);
    evaluation.{json,html} go to scratch/runs/<run id>/."""
    if request.pte:
        from orchestrator.artifacts.evaluate import evaluate_artifact

        return EvaluateReport(evaluate_artifact(request, scratch().ensure()))
    return EvaluateReport(evaluate(request, scratch().ensure()))
