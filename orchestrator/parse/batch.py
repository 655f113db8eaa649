"""`invoke parse DIR`: every log in a directory, one table row (or one JSON entry) each."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orchestrator.cli import console
from orchestrator.results.model import RunResult
from orchestrator.results.summary_table import STATUS_STYLE

LOG_SUFFIXES = (".log", ".txt")
MAX_REASON = 110


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


def print_table(results: Sequence[tuple[Path, RunResult]]) -> None:
    """One table: a row per log with its verdict, then a count per status."""
    from rich.table import Table

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for title in ("log", "status", "kind", "reason"):
        table.add_column(title, overflow="fold")
    for (name, status, kind, reason), (_, result) in zip(table_rows(results), results, strict=True):
        table.add_row(name, status, kind, reason, style=STATUS_STYLE[result.status])
    out = console()
    out.print(table)
    counts: dict[str, int] = {}
    for _, result in results:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    out.print(f"{len(results)} logs: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))
