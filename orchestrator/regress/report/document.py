"""The regression report document of a run: built from the engine's run, finished (counts,
cache, verdict), written, read back (the types: orchestrator.regress.report.records).

Every renderer (JUnit, Markdown, HTML) and regress-merge read this one typed document, so a
merged set of shard reports renders exactly like a single run.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.regress.engine import EngineRun
from orchestrator.regress.plan.cells import Cell
from orchestrator.regress.report.records import (
    REPORT_KIND,
    REPORT_SCHEMA,
    BaselineRecord,
    BuildRecord,
    CellRecord,
    CompileRecord,
    DeltaRecord,
    MatrixRef,
    RegressDocument,
    RunOptions,
    UpstreamRecord,
    served_from_cache,
    tolerance_json,
)
from orchestrator.regress.verdict.baseline import BaselineCheck
from orchestrator.regress.verdict.outcome import CellReport, Outcome

REPORT_NAME = "report.json"
LAST_POINTER = "regress-last.json"


@dataclass(frozen=True)
class RunHeader:
    """The run-level facts of a report: run id, matrix, shard, times, options."""

    run_id: str
    matrix: MatrixRef
    shard: str | None
    started_at: str
    finished_at: str
    options: RunOptions


def build_document(run: EngineRun, header: RunHeader) -> RegressDocument:
    """The report document of one engine run."""
    document = RegressDocument(
        run_id=header.run_id, matrix=header.matrix, shard=header.shard,
        started_at=header.started_at, finished_at=header.finished_at, options=header.options,
        builds=[BuildRecord(key=b.config.key, target=b.config.target, app=b.config.app,
                            ok=b.ok, cached=b.cached, seconds=b.seconds, reason=b.reason,
                            log=b.log) for b in run.builds],
        compiles=[CompileRecord(key=f"{r.model}@{r.target}", options=dict(r.options), ok=o.ok,
                                cached=o.cached, seconds=o.seconds, reason=o.reason, log=o.log)
                  for r, o in sorted(run.compiles.items(),
                                     key=lambda item: item[0].report_order())],
        cells=[cell_record(report) for report in run.cells],
        phases_s=run.phases_s)
    return finish(document)


def finish(document: RegressDocument) -> RegressDocument:
    """(Re)compute counts, what was served from cache and the verdict from the cells."""
    counts = Counter(cell.outcome for cell in document.cells)
    document.counts = {outcome.value: counts.get(outcome, 0) for outcome in Outcome}
    document.counts["total"] = len(document.cells)
    document.served_from_cache = served_from_cache(document.cells)
    document.verdict = "fail" if document.failing else "pass"
    return document


def cell_record(report: CellReport) -> CellRecord:
    """What the report says about one cell."""
    cell = report.cell
    return CellRecord(
        key=cell.key, model=cell.model, model_spec=cell.model_spec, target=cell.target,
        options=cell.options_name, option_values=dict(cell.options), mode=cell.mode.value,
        lane=cell.lane, sim=cell.sim, sim_kind=cell.sim_kind, timeout_s=cell.timeout_s,
        expect=cell.expect.value, expect_reason=cell.expect_reason,
        expect_kind=cell.expect_kind, upstream=upstream_record(cell), weight=cell.weight,
        outcome=report.outcome, reason=report.reason, out_dir=report.out_dir, log=report.log,
        run_id=report.run_id, metrics=dict(report.metrics), versions=dict(report.versions),
        baseline=baseline_record(report.baseline) if report.baseline else None,
        seconds=dict(report.seconds), cached=dict(report.cached),
        result=report.result.to_dict() if report.result else None,
        cluster=report.placement)


def upstream_record(cell: Cell) -> UpstreamRecord | None:
    upstream = cell.upstream
    if upstream is None:
        return None
    return UpstreamRecord(upstream.status, upstream.reason, dict(upstream.tolerance),
                          upstream.source)


def baseline_record(check: BaselineCheck) -> BaselineRecord:
    """A baseline check as the report keeps it: the metrics that moved, and the summary."""
    return BaselineRecord(
        status=check.status, summary=check.summary(),
        deltas=[DeltaRecord(d.metric, d.baseline, d.value, d.delta, d.relative, d.ok,
                            tolerance_json(d.tolerance)) for d in check.deltas if d.moved],
        compared=len(check.deltas),
        version_changes={name: list(pair) for name, pair in check.version_changes.items()})


def write_document(path: Path, document: RegressDocument) -> None:
    """report.json, atomically (temp file + rename), stable key order."""
    write_json_atomic(path, document.to_json())


def load_report(path: Path) -> RegressDocument:
    """Read a report document (a run directory or its report.json)."""
    path = path / REPORT_NAME if path.is_dir() else path
    try:
        plain = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise OrchestratorError(f"no regression report at {path}",
                                "invoke regress --matrix <file> writes one") from None
    except ValueError as error:
        raise OrchestratorError(f"{path} is not valid JSON ({error})",
                                "rerun the job that wrote it") from None
    not_one = OrchestratorError(f"{path} is not a schema {REPORT_SCHEMA} regression report",
                                "pass the report.json that invoke regress wrote")
    if not isinstance(plain, dict) or plain.get("kind") != REPORT_KIND or \
            plain.get("schema") != REPORT_SCHEMA:
        raise not_one
    try:
        return RegressDocument.from_json(plain)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise not_one from None


def remember_last(runs_dir: Path, report_path: Path) -> None:
    """Point scratch/runs/regress-last.json at the newest report (for --rerun-failed)."""
    write_json_atomic(runs_dir / LAST_POINTER, {"report": str(report_path)})


def last_report(runs_dir: Path) -> RegressDocument:
    """The newest report this scratch tree recorded."""
    pointer = runs_dir / LAST_POINTER
    if not pointer.is_file():
        raise OrchestratorError(f"no previous regression report recorded in {runs_dir}",
                                "invoke regress --matrix <file> (without --rerun-failed)")
    return load_report(Path(json.loads(pointer.read_text(encoding="utf-8"))["report"]))
