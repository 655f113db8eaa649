"""`invoke evaluate` on the command line: run, print the table (or JSON); exit 0 only when
every sample ran and matched its exact reference."""

from __future__ import annotations

from orchestrator.api.evaluate_job import evaluate_with
from orchestrator.commands.run import terminate_as_interrupt
from orchestrator.evaluate.report import format_table
from orchestrator.foundation.cli import print_json
from orchestrator.options.evaluate import EvaluateRequest


def evaluate_command(request: EvaluateRequest, json: bool = False) -> int:
    """CLI entry (SIGTERM stops the session like Ctrl-C: no simulator is left behind)."""
    with terminate_as_interrupt():
        report = evaluate_with(request)
    if json:
        print_json(report.to_dict())
    else:
        print(format_table(report.document))
    return 0 if report.passed else 1
