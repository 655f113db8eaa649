"""A static, single-file HTML report: verdict, cell table, per-operator profiles, failures and
embedded plots."""

from __future__ import annotations

from html import escape
from typing import Any

from orchestrator.foundation.html_page import render_html
from orchestrator.regress.plan.cells import describe_upstream
from orchestrator.regress.report.document import cache_line
from orchestrator.regress.report.markdown import HEADLINE_METRICS
from orchestrator.regress.verdict.baseline import fmt

COLOURS = {"pass": "#d4f7d4", "xfail": "#e8f0d8", "skipped": "#eeeeee", "fail": "#f9d0d0",
           "error": "#f9c0a0", "timeout": "#f9e0a0", "xpass": "#f9d0f0", "regressed": "#f9d8b0"}


def report_html(document: dict[str, Any], plots: list[tuple[str, str]] | None = None) -> str:
    """The whole report as one HTML file (plots are base64 PNGs, no external files)."""
    if plots is None:
        from orchestrator.regress.report.plots import report_plots

        plots = report_plots(document["cells"])
    counts = ", ".join(f"{name}: {count}" for name, count in document["counts"].items() if count)
    parts = [
        f"<h1>Regression {escape(document['matrix']['name'])}: "
        f"<span class='verdict-{document['verdict']}'>{document['verdict'].upper()}</span></h1>",
        f"<p>Run <code>{escape(document['run_id'])}</code>"
        + (f", shard {escape(str(document['shard']))}" if document.get("shard") else "")
        + f", matrix <code>{escape(document['matrix']['path'])}</code>. {escape(counts)}; "
        f"{escape(cache_line(document))}.</p>",
        _cell_table(document["cells"]),
        _profiles(document["cells"]),
        "<h2>Plots</h2>" if plots else "",
        *(f"<figure><img alt='{escape(caption)}' src='data:image/png;base64,{data}'>"
          f"<figcaption>{escape(caption)}</figcaption></figure>" for caption, data in plots),
        _updates(document.get("baseline_updates")),
    ]
    return render_html(f"regress {document['matrix']['name']} {document['run_id']}",
                       "\n".join(part for part in parts if part))


def _cell_table(cells: list[dict[str, Any]]) -> str:
    """The cells with outcome colour, headline metrics, baseline summary and log path."""
    metrics = [name for name in HEADLINE_METRICS
               if any(name in cell.get("metrics", {}) for cell in cells)]
    header = "".join(f"<th>{escape(h)}</th>" for h in
                     ["outcome", "cell", "mode", "sim", *metrics, "baseline", "upstream",
                      "reason", "log"])
    rows = []
    for cell in cells:
        values = "".join(f"<td class='num'>{fmt(cell.get('metrics', {}).get(name))}</td>"
                         for name in metrics)
        baseline = (cell.get("baseline") or {}).get("summary", "-")
        rows.append(
            f"<tr style='background:{COLOURS[cell['outcome']]}'><td>{cell['outcome']}</td>"
            f"<td><code>{escape(cell['key'])}</code></td><td>{cell['mode']}</td>"
            f"<td>{escape(cell.get('sim') or '-')}</td>{values}<td>{escape(baseline)}</td>"
            f"<td>{escape(describe_upstream(cell.get('upstream')))}</td>"
            f"<td>{escape(cell['reason'])}</td>"
            f"<td><code>{escape(cell.get('log') or cell['out_dir'])}</code></td></tr>")
    return f"<table><tr>{header}</tr>{''.join(rows)}</table>"


PROFILE_COLUMNS = ("operator", "executor", "calls", "total", "per call", "share %",
                   "Vela est. NPU cycles")


def _profiles(cells: list[dict[str, Any]]) -> str:
    """Per-operator tables of the cells that ran with the event tracer (--profile)."""
    sections = [_profile_table(cell["key"], profile) for cell in cells
                if (profile := (cell.get("result") or {}).get("profile"))]
    return "<h2>Per-operator profiles</h2>" + "".join(sections) if sections else ""


def _profile_table(key: str, profile: dict[str, Any]) -> str:
    """One cell's profile: what its counts mean, then one row per operator and the runtime."""
    meaning = f"{profile['unit']} from {profile['source']}: {profile['note']}"
    if profile.get("npu_note"):
        meaning += f"; {profile['npu_note']}"
    header = "".join(f"<th>{escape(name)}</th>" for name in PROFILE_COLUMNS)
    rows = [[row["operator"], row["executor"], row["calls"], row["total"], row["per_call"],
             row["share_percent"], row.get("vela_cycles")] for row in profile["operators"]]
    total = profile["total"]
    overhead = profile["runtime_overhead"]
    rows.append(["ExecuTorch runtime (between operators)", "runtime", profile["inferences"],
                 overhead, None, round(100.0 * overhead / total, 2) if total else 0.0, None])
    body = "".join("<tr>" + "".join(
        f"<td class='num'>{fmt(value)}</td>" if isinstance(value, (int, float)) or value is None
        else f"<td>{escape(str(value))}</td>" for value in row) + "</tr>" for row in rows)
    return (f"<h3><code>{escape(key)}</code>: {total} {escape(profile['unit'])}</h3>"
            f"<p>{escape(meaning)}</p><table><tr>{header}</tr>{body}</table>")


def _updates(lines: list[str] | None) -> str:
    """The --update-baselines diff, if any."""
    if not lines:
        return ""
    return "<h2>Baseline updates</h2><pre>" + escape("\n".join(lines)) + "</pre>"
