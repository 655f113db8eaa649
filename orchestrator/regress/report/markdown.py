"""A Markdown summary for CI job pages (GitHub step summary, GitLab, PR comments)."""

from __future__ import annotations

from typing import Any

from orchestrator.regress.plan.cells import describe_upstream
from orchestrator.regress.report.document import cache_line
from orchestrator.regress.verdict.baseline import fmt

ICONS = {"pass": "✅", "xfail": "☑️", "skipped": "⏭️", "fail": "❌", "error": "💥",
         "timeout": "⏱️", "xpass": "❗", "regressed": "📉"}
HEADLINE_METRICS = ("npu.cycles", "cpu.cycles", "vela.npu_cycles", "vela.total_cycles",
                    "memory.pte_size", "error.max_abs")


def render_markdown(document: dict[str, Any]) -> str:
    """Verdict line, counts, the failures first with reasons, then the full cell table."""
    counts = document["counts"]
    verdict = "✅ PASS" if document["verdict"] == "pass" else "❌ FAIL"
    shown = ", ".join(f"{name} {count}" for name, count in counts.items()
                      if count and name != "total")
    lines = [f"## Regression `{document['matrix']['name']}`: {verdict}", "",
             f"Run `{document['run_id']}`" + (f", shard {document['shard']}"
                                              if document.get("shard") else "") +
             f": {counts['total']} cell{'' if counts['total'] == 1 else 's'} — "
             f"{shown or 'none'}; {cache_line(document)}.", ""]
    failing = [cell for cell in document["cells"] if cell["outcome"] in
               ("fail", "error", "timeout", "xpass", "regressed")]
    if failing:
        lines += ["### Needs attention", ""]
        lines += [f"- {ICONS[cell['outcome']]} `{cell['key']}` **{cell['outcome']}**: "
                  f"{_escape(cell['reason'])}" + (f" (log: `{cell['log']}`)" if cell.get("log")
                                                   else "")
                  for cell in failing]
        lines.append("")
    lines += _table(document["cells"])
    lines += _cluster(document.get("cluster"))
    updates = document.get("baseline_updates")
    if updates:
        lines += ["", "### Baseline updates", "", "```diff", *updates, "```"]
    return "\n".join(lines) + "\n"


def _table(cells: list[dict[str, Any]]) -> list[str]:
    """One row per cell with its headline metrics and baseline status."""
    metrics = [name for name in HEADLINE_METRICS
               if any(name in cell.get("metrics", {}) for cell in cells)]
    upstream = any(cell.get("upstream") for cell in cells)   # peer matrices: theirs vs ours
    header = ["", "cell", "mode", "sim", *metrics, "baseline",
              *(["upstream", "here"] if upstream else ["reason"])]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for cell in cells:
        values = [fmt(cell.get("metrics", {}).get(name)) for name in metrics]
        baseline = (cell.get("baseline") or {}).get("status", "-")
        theirs = [_escape(describe_upstream(cell.get("upstream")))] if upstream else []
        rows.append("| " + " | ".join([ICONS[cell["outcome"]], f"`{cell['key']}`", cell["mode"],
                                       cell.get("sim") or "-", *values, baseline, *theirs,
                                       _escape(cell["reason"])[:160]]) + " |")
    return rows


def _cluster(section: dict[str, Any] | None) -> list[str]:
    """A cluster job's workers (refused ones with their reason), retried and resumed cells."""
    if not section:
        return []
    lines = ["", f"### Cluster `{section['scheduler'] or 'local'}`", ""]
    for worker in section["workers"]:
        state = (f"refused: {_escape(worker['reason'])}" if worker["state"] == "refused"
                 else f"{worker['cells']} cells, products {worker['products']}")
        lines.append(f"- `{worker['address']}` ({worker['host']}): {state}")
    for label in ("retried", "resumed"):
        if section.get(label):
            lines.append(f"- {label}: " + ", ".join(f"`{key}`" for key in section[label]))
    return lines


def _escape(text: str) -> str:
    """Keep a table cell on one line and its pipes literal."""
    return text.replace("|", "\\|").replace("\n", " ")
