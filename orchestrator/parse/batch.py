"""A directory of logs for `invoke parse DIR`: which files are logs, and one table row per
parsed log (the command prints them: orchestrator.commands.parse)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orchestrator.results.model import RunResult

LOG_SUFFIXES = (".log", ".txt")
MAX_REASON = 110
NOT_TEXT = "not-text"


def logs_in(directory: Path) -> list[Path]:
    """The console logs in `directory` (files ending .log or .txt), sorted by name."""
    return sorted(
        path for path in directory.iterdir() if path.is_file() and path.suffix in LOG_SUFFIXES
    )


def table_rows(results: Sequence[tuple[Path, RunResult]]) -> list[tuple[str, str, str, str]]:
    """(file, status, kind, reason) per log; long reasons are cut for the table."""
    rows = []
    for path, result in results:
        reason = result.reason
        if len(reason) > MAX_REASON:
            reason = reason[: MAX_REASON - 1] + "…"
        rows.append((path.name, result.status.value, result.classification.kind.value, reason))
    return rows
