"""`invoke regress --matrix M --toolsets A,B`: print the A/B's rows and verdict."""

from __future__ import annotations

from orchestrator.api.reports import RegressReport
from orchestrator.regress.report.toolset_ab import rows, verdict


def print_ab(report: RegressReport) -> None:
    """One row per compared cell, the verdict and where the reports are."""
    for row in rows(report.document):
        print("  " + " | ".join(row))
    print(verdict(report.document))
    print(f"toolsets report: {report.paths['toolsets.md']} (also .json, .html)")
