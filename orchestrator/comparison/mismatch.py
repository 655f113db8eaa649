"""A passing run whose outputs failed a comparison (bit-exactness, tolerances, an accuracy
gate, a data set's input sets) becomes an output mismatch; a run that already failed keeps
its own cause."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from orchestrator.results.model import Classification, Kind, RunResult, Status


def output_mismatch(result: RunResult, reason: str, summary: str, next_step: str,
                    details: dict[str, Any] | None = None) -> RunResult:
    """`result` failed as an output mismatch (`reason` for the run, `summary`, `next_step`
    and `details` for its classification) when it had passed; else unchanged."""
    if result.status is not Status.PASS:
        return result
    return replace(result, status=Status.FAIL, reason=reason, classification=Classification(
        kind=Kind.OUTPUT_MISMATCH, summary=summary, next_step=next_step,
        details=details or {}))
