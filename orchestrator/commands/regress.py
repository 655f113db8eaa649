"""`invoke regress` and `invoke regress-merge`: run through orchestrator.api.regress_job,
print the cell table and the verdict (or the document as JSON)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.api.regress_job import merge_with, regress_with
from orchestrator.api.reports import RegressReport
from orchestrator.foundation.cli import console, print_json
from orchestrator.options.regress import RegressMerge, RegressTask
from orchestrator.regress.lanes.stages import Stages
from orchestrator.regress.report.markdown import headline_metrics
from orchestrator.regress.report.records import RegressDocument
from orchestrator.regress.verdict.baseline import fmt

EXIT_FAILED = 1


def regress_command(task: RegressTask, json: bool = False, scratch_root: str | None = None,
                    stages: Stages | None = None) -> int:
    """Run a matrix file; write report.json, junit.xml, summary.md, report.html; 1 iff failed."""
    report = regress_with(task, scratch_root, stages, display=not (task.quiet or json))
    return _print(report, json, task.quiet)


def merge_command(task: RegressMerge, json: bool = False, scratch_root: str | None = None) -> int:
    """Combine shard reports into one report and one verdict; 1 iff a cell failed."""
    return _print(merge_with(task, scratch_root), json, task.quiet)


def _print(report: RegressReport, json: bool, quiet: bool) -> int:
    """The document as JSON, or the table (the A/B rows) unless quiet; 1 iff a cell failed."""
    if json:
        print_json(report.document)
    elif quiet:
        pass
    elif report.toolsets:
        from orchestrator.commands.toolset_ab import print_ab

        print_ab(report)
    elif report.typed is not None:
        print_summary(report.typed, report.paths, console())
    return 0 if report.passed else EXIT_FAILED


SHORT_NAMES = {"npu.cycles": "NPU cyc", "cpu.cycles": "CPU cyc", "vela.npu_cycles": "Vela NPU",
               "vela.total_cycles": "Vela total", "memory.pte_size": ".pte B",
               "error.max_abs": "max err"}
STYLES = {"pass": "green", "xfail": "green", "skipped": "dim", "fail": "red", "error": "red",
          "timeout": "red", "xpass": "magenta", "regressed": "yellow"}


def print_summary(document: RegressDocument, paths: dict[str, Path], console: Any) -> None:
    """A table of cells, the baseline diff, the report paths and a one-line verdict."""
    from rich.table import Table

    cells = document.cells
    metrics = headline_metrics(cells)
    table = Table(title=f"regress {document.matrix.name} ({document.run_id})")
    table.add_column("outcome", min_width=9, no_wrap=True)
    table.add_column("cell", min_width=30, no_wrap=True)
    table.add_column("mode", min_width=7, no_wrap=True)
    table.add_column("sim", min_width=4, no_wrap=True)
    for column in metrics:
        label = SHORT_NAMES.get(column, column)
        table.add_column(label, justify="right", min_width=len(label), no_wrap=True)
    upstream = any(cell.upstream for cell in cells)   # its mark; the reports say more
    if upstream:
        table.add_column("upstream", min_width=8, no_wrap=True)
    table.add_column("reason", overflow="ellipsis", no_wrap=True, max_width=48)
    for cell in cells:
        theirs = [cell.upstream.status if cell.upstream else "-"] if upstream else []
        outcome = cell.outcome.value
        table.add_row(f"[{STYLES[outcome]}]{outcome}[/]", cell.key, cell.mode, cell.sim or "-",
                      *(fmt(cell.metrics.get(name)) for name in metrics), *theirs, cell.reason)
    console.print(table)
    for line in document.baseline_updates or []:
        console.print(line, highlight=False, markup=False)
    for name, path in paths.items():
        console.print(f"{name:8} {path}", highlight=False)
    counts = ", ".join(f"{k} {v}" for k, v in document.counts.items() if v and k != "total")
    colour = "green" if document.verdict == "pass" else "red"
    ran = document.counts["total"] - document.counts["skipped"]
    note = "" if ran else " (no cell ran)"
    console.print(f"[{colour}]{document.verdict.upper()}[/]{note}: {counts or 'no cells'}; "
                  f"{document.cache_line()}")
