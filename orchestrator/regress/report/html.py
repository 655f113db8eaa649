"""A static, single-file HTML report: verdict, cell table, per-operator profiles, failures and
embedded plots."""

from __future__ import annotations

from html import escape

from orchestrator.foundation.html_page import render_html
from orchestrator.regress.report.markdown import headline_metrics
from orchestrator.regress.report.records import CellRecord, RegressDocument, describe_upstream
from orchestrator.regress.verdict.baseline import fmt
from orchestrator.results.model import Profile

COLOURS = {"pass": "#d4f7d4", "xfail": "#e8f0d8", "skipped": "#eeeeee", "fail": "#f9d0d0",
           "error": "#f9c0a0", "timeout": "#f9e0a0", "xpass": "#f9d0f0", "regressed": "#f9d8b0"}


def report_html(document: RegressDocument, plots: list[tuple[str, str]] | None = None) -> str:
    """The whole report as one HTML file (plots are base64 PNGs, no external files)."""
    if plots is None:
        from orchestrator.regress.report.plots import report_plots

        plots = report_plots(document.cells)
    counts = ", ".join(f"{name}: {count}" for name, count in document.counts.items() if count)
    parts = [
        f"<h1>Regression {escape(document.matrix.name)}: "
        f"<span class='verdict-{document.verdict}'>{document.verdict.upper()}</span></h1>",
        f"<p>Run <code>{escape(document.run_id)}</code>"
        + (f", shard {escape(document.shard)}" if document.shard else "")
        + f", matrix <code>{escape(document.matrix.path)}</code>. {escape(counts)}; "
        f"{escape(document.cache_line())}.</p>",
        _cell_table(document.cells),
        _profiles(document.cells),
        "<h2>Plots</h2>" if plots else "",
        *(f"<figure><img alt='{escape(caption)}' src='data:image/png;base64,{data}'>"
          f"<figcaption>{escape(caption)}</figcaption></figure>" for caption, data in plots),
        _updates(document.baseline_updates),
    ]
    return render_html(f"regress {document.matrix.name} {document.run_id}",
                       "\n".join(part for part in parts if part))


def _cell_table(cells: list[CellRecord]) -> str:
    """The cells with outcome colour, headline metrics, baseline summary and log path."""
    metrics = headline_metrics(cells)
    header = "".join(f"<th>{escape(h)}</th>" for h in
                     ["outcome", "cell", "mode", "sim", *metrics, "baseline", "upstream",
                      "reason", "log"])
    rows = []
    for cell in cells:
        values = "".join(f"<td class='num'>{fmt(cell.metrics.get(name))}</td>"
                         for name in metrics)
        baseline = cell.baseline.summary if cell.baseline else "-"
        outcome = cell.outcome.value
        rows.append(
            f"<tr style='background:{COLOURS[outcome]}'><td>{outcome}</td>"
            f"<td><code>{escape(cell.key)}</code></td><td>{cell.mode}</td>"
            f"<td>{escape(cell.sim or '-')}</td>{values}<td>{escape(baseline)}</td>"
            f"<td>{escape(describe_upstream(cell.upstream))}</td>"
            f"<td>{escape(cell.reason)}</td>"
            f"<td><code>{escape(cell.log or cell.out_dir)}</code></td></tr>")
    return f"<table><tr>{header}</tr>{''.join(rows)}</table>"


PROFILE_COLUMNS = ("operator", "executor", "calls", "total", "per call", "share %",
                   "Vela est. NPU cycles")


def _profiles(cells: list[CellRecord]) -> str:
    """Per-operator tables of the cells that ran with the event tracer (--profile)."""
    sections = [_profile_table(cell.key, profile) for cell in cells
                if (profile := cell.profile)]
    return "<h2>Per-operator profiles</h2>" + "".join(sections) if sections else ""


def _profile_table(key: str, profile: Profile) -> str:
    """One cell's profile: what its counts mean, then one row per operator and the runtime."""
    meaning = f"{profile.unit} from {profile.source}: {profile.note}"
    if profile.npu_note:
        meaning += f"; {profile.npu_note}"
    header = "".join(f"<th>{escape(name)}</th>" for name in PROFILE_COLUMNS)
    rows: list[list[str | float | None]] = [
        [row.operator, row.executor, row.calls, row.total, row.per_call, row.share_percent,
         row.vela_cycles] for row in profile.operators]
    total = profile.total
    overhead = profile.runtime_overhead
    rows.append(["ExecuTorch runtime (between operators)", "runtime", profile.inferences,
                 overhead, None, round(100.0 * overhead / total, 2) if total else 0.0, None])
    body = "".join("<tr>" + "".join(
        f"<td class='num'>{fmt(value)}</td>" if isinstance(value, (int, float)) or value is None
        else f"<td>{escape(str(value))}</td>" for value in row) + "</tr>" for row in rows)
    return (f"<h3><code>{escape(key)}</code>: {total} {escape(profile.unit)}</h3>"
            f"<p>{escape(meaning)}</p><table><tr>{header}</tr>{body}</table>")


def _updates(lines: list[str] | None) -> str:
    """The --update-baselines diff, if any."""
    if not lines:
        return ""
    return "<h2>Baseline updates</h2><pre>" + escape("\n".join(lines)) + "</pre>"
