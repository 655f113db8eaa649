"""Write a report document in every format (invoke regress prints its console summary:
orchestrator.commands.regress)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.foundation.file_faults import writing
from orchestrator.regress.report.document import REPORT_NAME, write_document
from orchestrator.regress.report.html import report_html
from orchestrator.regress.report.junit import render_junit
from orchestrator.regress.report.markdown import render_markdown
from orchestrator.regress.report.records import RegressDocument


def write_reports(run_dir: Path, document: RegressDocument) -> dict[str, Path]:
    """report.json, junit.xml, summary.md and report.html in the run directory."""
    with writing(run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": run_dir / REPORT_NAME, "junit": run_dir / "junit.xml",
             "markdown": run_dir / "summary.md", "html": run_dir / "report.html"}
    write_document(paths["json"], document)
    for name, render in (("junit", render_junit), ("markdown", render_markdown),
                         ("html", report_html)):
        with writing(paths[name]):
            paths[name].write_text(render(document), encoding="utf-8")
    return paths
