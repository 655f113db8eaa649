"""A Markdown summary for CI job pages (GitHub step summary, GitLab, PR comments)."""

from __future__ import annotations

from orchestrator.regress.report.records import (
    CellRecord,
    ClusterSection,
    RegressDocument,
    describe_upstream,
)
from orchestrator.regress.verdict.baseline import fmt

ICONS = {"pass": "✅", "xfail": "☑️", "skipped": "⏭️", "fail": "❌", "error": "💥",
         "timeout": "⏱️", "xpass": "❗", "regressed": "📉"}
HEADLINE_METRICS = ("npu.cycles", "cpu.cycles", "vela.npu_cycles", "vela.total_cycles",
                    "memory.pte_size", "error.max_abs")


def headline_metrics(cells: list[CellRecord]) -> list[str]:
    """The headline metrics some cell has, in HEADLINE_METRICS order."""
    return [name for name in HEADLINE_METRICS if any(name in cell.metrics for cell in cells)]


def render_markdown(document: RegressDocument) -> str:
    """Verdict line, counts, the failures first with reasons, then the full cell table."""
    counts = document.counts
    verdict = "✅ PASS" if document.verdict == "pass" else "❌ FAIL"
    shown = ", ".join(f"{name} {count}" for name, count in counts.items()
                      if count and name != "total")
    lines = [f"## Regression `{document.matrix.name}`: {verdict}", "",
             f"Run `{document.run_id}`" + (f", shard {document.shard}"
                                           if document.shard else "") +
             f": {counts['total']} cell{'' if counts['total'] == 1 else 's'} — "
             f"{shown or 'none'}; {document.cache_line()}.", ""]
    failing = document.failing
    if failing:
        lines += ["### Needs attention", ""]
        lines += [f"- {ICONS[cell.outcome.value]} `{cell.key}` **{cell.outcome.value}**: "
                  f"{_escape(cell.reason)}" + (f" (log: `{cell.log}`)" if cell.log else "")
                  for cell in failing]
        lines.append("")
    lines += _table(document.cells)
    lines += _cluster(document.cluster)
    if document.baseline_updates:
        lines += ["", "### Baseline updates", "", "```diff", *document.baseline_updates, "```"]
    return "\n".join(lines) + "\n"


def _table(cells: list[CellRecord]) -> list[str]:
    """One row per cell with its headline metrics and baseline status."""
    metrics = headline_metrics(cells)
    upstream = any(cell.upstream for cell in cells)   # peer matrices: theirs vs ours
    header = ["", "cell", "mode", "sim", *metrics, "baseline",
              *(["upstream", "here"] if upstream else ["reason"])]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for cell in cells:
        values = [fmt(cell.metrics.get(name)) for name in metrics]
        baseline = cell.baseline.status if cell.baseline else "-"
        theirs = [_escape(describe_upstream(cell.upstream))] if upstream else []
        rows.append("| " + " | ".join([ICONS[cell.outcome.value], f"`{cell.key}`", cell.mode,
                                       cell.sim or "-", *values, baseline, *theirs,
                                       _escape(cell.reason)[:160]]) + " |")
    return rows


def _cluster(section: ClusterSection | None) -> list[str]:
    """A cluster job's workers (refused ones with their reason), retried and resumed cells."""
    if not section:
        return []
    lines = ["", f"### Cluster `{section.scheduler or 'local'}`", ""]
    for worker in section.workers:
        state = (f"refused: {_escape(worker.reason or '')}" if worker.state == "refused"
                 else f"{worker.cells} cells, products {worker.products}")
        lines.append(f"- `{worker.address}` ({worker.host}): {state}")
    for label, keys in (("retried", section.retried), ("resumed", section.resumed)):
        if keys:
            lines.append(f"- {label}: " + ", ".join(f"`{key}`" for key in keys))
    return lines


def _escape(text: str) -> str:
    """Keep a table cell on one line and its pipes literal."""
    return text.replace("|", "\\|").replace("\n", " ")
