"""`invoke evaluate` on the command line: run, print the table (or JSON); exit 0 only when
every sample ran and matched its exact reference."""

from __future__ import annotations

from orchestrator.cli import print_json
from orchestrator.commands.run import terminate_as_interrupt
from orchestrator.evaluate.evaluate import evaluate
from orchestrator.evaluate.report import format_table
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.paths import scratch
from orchestrator.results.codec import to_plain


def evaluate_command(request: EvaluateRequest, json: bool = False) -> int:
    """CLI entry (SIGTERM stops the session like Ctrl-C: no simulator is left behind)."""
    with terminate_as_interrupt():
        document = evaluate(request, scratch().ensure())
    if json:
        print_json(to_plain(document))
    else:
        print(format_table(document))
    return 0 if document["passed"] else 1
