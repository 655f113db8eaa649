"""The regression report document (results JSON): cells, builds, compiles, counts, verdict.

Every renderer (JUnit, Markdown, HTML) and regress-merge read this plain document, so a
merged set of shard reports renders exactly like a single run.
"""

from __future__ import annotations

import json
import os
import platform
from collections import Counter
from pathlib import Path
from typing import Any

from orchestrator import __version__
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.regress.engine import EngineRun
from orchestrator.regress.verdict.outcome import FAILING, Outcome

REPORT_SCHEMA = 1
REPORT_KIND = "ethosu-orchestrator/regress-report"
REPORT_NAME = "report.json"
LAST_POINTER = "regress-last.json"


def build_document(run: EngineRun, header: dict[str, Any]) -> dict[str, Any]:
    """The report document of one engine run; `header` holds run id, matrix, shard, options."""
    document = {
        "schema": REPORT_SCHEMA, "kind": REPORT_KIND, "tool": __version__,
        "host": {"node": platform.node(), "system": platform.system(),
                 "machine": platform.machine(), "cores": os.cpu_count()},
        **header,
        "builds": [{"key": b.config.key, "target": b.config.target, "app": b.config.app,
                    "ok": b.ok, "cached": b.cached, "seconds": b.seconds, "reason": b.reason,
                    "log": b.log} for b in run.builds],
        "compiles": [{"key": f"{r.model}@{r.target}", "options": dict(r.options), "ok": o.ok,
                      "cached": o.cached, "seconds": o.seconds, "reason": o.reason,
                      "log": o.log}
                     for r, o in sorted(run.compiles.items(),
                                        key=lambda item: item[0].report_order())],
        "cells": [report.to_dict() for report in run.cells],
        "phases_s": run.phases_s,
    }
    return finish(document)


def finish(document: dict[str, Any]) -> dict[str, Any]:
    """(Re)compute counts, what was served from cache and the verdict from the cells."""
    counts = Counter(cell["outcome"] for cell in document["cells"])
    document["counts"] = {outcome.value: counts.get(outcome.value, 0) for outcome in Outcome}
    document["counts"]["total"] = len(document["cells"])
    document["served_from_cache"] = served_from_cache(document["cells"])
    document["verdict"] = "fail" if failing_cells(document) else "pass"
    return document


def served_from_cache(cells: list[dict[str, Any]]) -> dict[str, Any]:
    """Which cells were served from cache (every stage before their simulation reused: the
    product compiled and the firmware built), and per stage how many cells reused it."""
    stages = sorted({stage for cell in cells for stage in cell.get("cached") or {}})
    return {"cells": [cell["key"] for cell in cells
                      if cell.get("cached") and all(cell["cached"].values())],
            "stages": {stage: sum(1 for cell in cells if (cell.get("cached") or {}).get(stage))
                       for stage in stages},
            "total": len(cells)}


def cache_line(document: dict[str, Any]) -> str:
    """One line for the summaries: how many cells were served from cache, and by stage."""
    served = document.get("served_from_cache") or served_from_cache(document["cells"])
    stages = ", ".join(f"{stage} {count}" for stage, count in served["stages"].items())
    return (f"served from cache: {len(served['cells'])}/{served['total']} cells"
            + (f" (by stage: {stages})" if stages else ""))


def failing_cells(document: dict[str, Any]) -> list[dict[str, Any]]:
    """Cells whose outcome fails the job."""
    failing = {outcome.value for outcome in FAILING}
    return [cell for cell in document["cells"] if cell["outcome"] in failing]


def write_json(path: Path, document: Any) -> None:
    """Atomic JSON write (temp file + rename), stable key order."""
    write_json_atomic(path, document)


def load_report(path: Path) -> dict[str, Any]:
    """Read a report document (a run directory or its report.json)."""
    path = path / REPORT_NAME if path.is_dir() else path
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OrchestratorError(f"no regression report at {path}",
                                "invoke regress --matrix <file> writes one") from None
    except ValueError as error:
        raise OrchestratorError(f"{path} is not valid JSON ({error})",
                                "rerun the job that wrote it") from None
    if document.get("kind") != REPORT_KIND or document.get("schema") != REPORT_SCHEMA:
        raise OrchestratorError(f"{path} is not a schema {REPORT_SCHEMA} regression report",
                                "pass the report.json that invoke regress wrote")
    return dict(document)


def remember_last(runs_dir: Path, report_path: Path) -> None:
    """Point scratch/runs/regress-last.json at the newest report (for --rerun-failed)."""
    write_json(runs_dir / LAST_POINTER, {"report": str(report_path)})


def last_report(runs_dir: Path) -> dict[str, Any]:
    """The newest report this scratch tree recorded."""
    pointer = runs_dir / LAST_POINTER
    if not pointer.is_file():
        raise OrchestratorError(f"no previous regression report recorded in {runs_dir}",
                                "invoke regress --matrix <file> (without --rerun-failed)")
    return load_report(Path(json.loads(pointer.read_text(encoding="utf-8"))["report"]))
