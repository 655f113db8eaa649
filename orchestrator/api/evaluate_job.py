"""`evaluate`: a data set through one simulator session, scored per sample."""

from __future__ import annotations

from orchestrator.api.reports import EvaluateReport
from orchestrator.evaluate.evaluate import evaluate
from orchestrator.foundation.paths import scratch
from orchestrator.options.evaluate import EvaluateRequest


def evaluate_with(request: EvaluateRequest) -> EvaluateReport:
    """Run the evaluation; evaluation.{json,html} go to scratch/runs/<run id>/."""
    return EvaluateReport(evaluate(request, scratch().ensure()))
