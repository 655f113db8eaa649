"""Write a report document in every format, and print its console summary."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.file_faults import writing
from orchestrator.regress.baseline import fmt
from orchestrator.regress.html import render_html
from orchestrator.regress.junit import render_junit
from orchestrator.regress.markdown import HEADLINE_METRICS, render_markdown
from orchestrator.regress.report_document import REPORT_NAME, write_json

SHORT_NAMES = {"npu.cycles": "NPU cyc", "cpu.cycles": "CPU cyc", "vela.npu_cycles": "Vela NPU",
               "vela.total_cycles": "Vela total", "memory.pte_size": ".pte B",
               "error.max_abs": "max err"}
STYLES = {"pass": "green", "xfail": "green", "skipped": "dim", "fail": "red", "error": "red",
          "timeout": "red", "xpass": "magenta", "regressed": "yellow"}


def write_reports(document: dict[str, Any], run_dir: Path) -> dict[str, Path]:
    """report.json, junit.xml, summary.md and report.html in the run directory."""
    with writing(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": run_dir / REPORT_NAME, "junit": run_dir / "junit.xml",
             "markdown": run_dir / "summary.md", "html": run_dir / "report.html"}
    write_json(paths["json"], document)
    for name, render in (("junit", render_junit), ("markdown", render_markdown),
                         ("html", render_html)):
        with writing(paths[name]):
            paths[name].write_text(render(document), encoding="utf-8")
    return paths


def print_summary(document: dict[str, Any], paths: dict[str, Path], console: Any) -> None:
    """A table of cells, the baseline diff, the report paths and a one-line verdict."""
    from rich.table import Table

    cells = document["cells"]
    metrics = [name for name in HEADLINE_METRICS
               if any(name in cell.get("metrics", {}) for cell in cells)]
    table = Table(title=f"regress {document['matrix']['name']} ({document['run_id']})")
    table.add_column("outcome", min_width=9, no_wrap=True)
    table.add_column("cell", min_width=30, no_wrap=True)
    table.add_column("mode", min_width=7, no_wrap=True)
    table.add_column("sim", min_width=4, no_wrap=True)
    for column in metrics:
        label = SHORT_NAMES.get(column, column)
        table.add_column(label, justify="right", min_width=len(label), no_wrap=True)
    upstream = any(cell.get("upstream") for cell in cells)   # its mark; the reports say more
    if upstream:
        table.add_column("upstream", min_width=8, no_wrap=True)
    table.add_column("reason", overflow="ellipsis", no_wrap=True, max_width=48)
    for cell in cells:
        theirs = [(cell.get("upstream") or {}).get("status", "-")] if upstream else []
        table.add_row(f"[{STYLES[cell['outcome']]}]{cell['outcome']}[/]", cell["key"],
                      cell["mode"], cell.get("sim") or "-",
                      *(fmt(cell.get("metrics", {}).get(name)) for name in metrics),
                      *theirs, cell["reason"])
    console.print(table)
    for line in document.get("baseline_updates") or []:
        console.print(line, highlight=False, markup=False)
    for name, path in paths.items():
        console.print(f"{name:8} {path}", highlight=False)
    counts = ", ".join(f"{k} {v}" for k, v in document["counts"].items() if v and k != "total")
    colour = "green" if document["verdict"] == "pass" else "red"
    ran = document["counts"]["total"] - document["counts"]["skipped"]
    note = "" if ran else " (no cell ran)"
    console.print(f"[{colour}]{document['verdict'].upper()}[/]{note}: {counts or 'no cells'}")
