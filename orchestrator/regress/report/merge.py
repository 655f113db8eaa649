"""regress-merge: shard reports -> one report with one verdict."""

from __future__ import annotations

from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.plan.select import parse_shard
from orchestrator.regress.report.document import finish, load_report
from orchestrator.regress.report.records import (
    CellRecord,
    MergedFrom,
    MergedOptions,
    RegressDocument,
)


def read_reports(paths: list[str]) -> list[RegressDocument]:
    """Load every named report (a run directory or a report.json)."""
    if not paths:
        raise OrchestratorError("regress-merge needs the shard reports to merge",
                                "invoke regress-merge --reports run1/report.json,run2/report.json")
    return [load_report(Path(path).expanduser().resolve()) for path in paths]


def merge_documents(documents: list[RegressDocument], run_id: str, now: str
                    ) -> RegressDocument:
    """One document from shard documents of the same matrix; refuses gaps and overlaps."""
    _check_same_matrix(documents)
    _check_shards(documents)
    cells: dict[str, CellRecord] = {}
    for document in documents:
        for cell in document.cells:
            if cell.key in cells:
                raise OrchestratorError(
                    f"cell {cell.key} is in two reports ({cells[cell.key].run_id} and "
                    f"{document.run_id})", "merge each shard's report exactly once")
            cells[cell.key] = cell
    first = documents[0]
    updates = [line for d in documents for line in d.baseline_updates or []]
    merged = RegressDocument(
        run_id=run_id, matrix=first.matrix, cells=[cells[key] for key in sorted(cells)],
        shard=None, started_at=min(d.started_at or now for d in documents), finished_at=now,
        options=MergedOptions(len(documents)),
        builds=[build for d in documents for build in d.builds],
        compiles=[item for d in documents for item in d.compiles],
        host=first.host, tool=first.tool, schema=first.schema, kind=first.kind,
        merged_from=[MergedFrom(d.run_id, d.shard, d.verdict) for d in documents],
        baseline_updates=updates or None)
    return finish(merged)


def _check_same_matrix(documents: list[RegressDocument]) -> None:
    """All reports must come from one matrix name."""
    names = sorted({document.matrix.name for document in documents})
    if len(names) > 1:
        raise OrchestratorError(f"the reports come from different matrices ({', '.join(names)})",
                                "merge the shards of one matrix at a time")


def _check_shards(documents: list[RegressDocument]) -> None:
    """Sharded reports must be shards 1..N of one N, each exactly once."""
    shards = [parse_shard(document.shard) for document in documents]
    if not any(shards):
        return
    counts = {shard.count for shard in shards if shard}
    if None in shards or len(counts) != 1:
        raise OrchestratorError("the reports mix different --shard splits (or unsharded runs)",
                                "merge the reports of one i/N split")
    count = counts.pop()
    seen = sorted(shard.index for shard in shards if shard)
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing or len(seen) != len(set(seen)):
        what = (f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing" if missing
                else "a shard appears twice")
        raise OrchestratorError(f"cannot merge: {what}",
                                "pass exactly one report per shard 1..N")
