"""An evaluation's reports: evaluation.json, a console table, evaluation.html with a
per-class accuracy chart (labelled data) and the device-vs-float error histogram."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from orchestrator.evaluate.scoring import SampleScore
from orchestrator.foundation.html_page import render_html
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.foundation.plotting import cached_png, png_of, pyplot
from orchestrator.results.codec import to_plain

JSON_FILE = "evaluation.json"
HTML_FILE = "evaluation.html"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _db(value: float | None) -> str:
    return "-" if value is None else ("inf" if math.isinf(value) else f"{value:.1f} dB")


def summary_rows(document: dict[str, Any]) -> list[tuple[str, str]]:
    """(what, value) rows of the summary table."""
    summary = document["summary"]
    accuracy = summary["accuracy"]
    rows = [("samples", f"{summary['completed']} of {summary['requested']} in one session "
                        f"({document['session_seconds']:.1f} s, "
                        f"{1000 * document['seconds_per_sample']:.0f} ms per sample)"),
            ("bit-exact vs " + document["reference"],
             "-" if summary["exact"] is None else f"{summary['exact']} of {summary['completed']}"),
            ("top-1 / top-5 agreement with float", f"{_percent(summary['top1_agreement'])} / "
                                                   f"{_percent(summary['top5_agreement'])}"),
            ("SNR vs float (mean, min)", f"{_db(summary['snr_db_mean'])}, "
                                         f"{_db(summary['snr_db_min'])}")]
    if summary["labelled"]:
        rows.append(("task accuracy float / host integer / device",
                     f"{_percent(accuracy['float'])} / {_percent(accuracy['host_integer'])} / "
                     f"{_percent(accuracy['device'])}"))
    if document.get("gates"):
        rows.append(("accuracy gates", "; ".join(document["gates"])))
    stopped = document.get("stopped")
    if stopped:
        rows.append(("stopped", f"at sample {stopped['stopped_at']} ({stopped['file']}): "
                                f"{stopped['reason']}"))
    return rows


def format_table(document: dict[str, Any]) -> str:
    """The console table: summary rows, then the first samples that were not exact."""
    rows = summary_rows(document)
    width = max(len(name) for name, _ in rows)
    lines = [f"evaluate {document['model']} on {document['target']}: "
             f"{'PASS' if document['passed'] else 'FAIL'}"]
    lines += [f"  {name:<{width}}  {value}" for name, value in rows]
    for sample in [s for s in document["samples"] if s["exact"] is False][:5]:
        lines.append(f"  not exact: sample {sample['index']} ({sample['file']}): "
                     f"{sample['mismatch']}")
    lines.append(f"  report: {document.get('report', '')}")
    return "\n".join(lines)


def per_class_chart(per_class: dict[Any, dict[str, float]]) -> str | None:
    """Grouped bars: each class's accuracy for float, host integer and device."""
    if not per_class:
        return None
    return cached_png("per-class", per_class, lambda: draw_per_class(per_class), Path(__file__))


def draw_per_class(per_class: dict[Any, dict[str, float]]) -> str:
    """Draw per_class_chart's bars with matplotlib."""
    plt = pyplot()
    labels = sorted(per_class, key=int)
    figure, axes = plt.subplots(figsize=(max(6, 0.6 * len(labels)), 3.5))
    for offset, name in enumerate(("float", "host_integer", "device")):
        axes.bar([i + (offset - 1) * 0.27 for i in range(len(labels))],
                 [per_class[label][name] for label in labels], width=0.27, label=name)
    axes.set_xticks(range(len(labels)), [str(label) for label in labels])
    axes.set_ylim(0, 1.05)
    axes.set_xlabel("class")
    axes.set_ylabel("accuracy")
    axes.legend(fontsize="small")
    return png_of(plt, figure)


def error_histogram(scores: Sequence[SampleScore]) -> str | None:
    """Device output minus float output, in quantization steps, over every sample."""
    errors = [value for score in scores for value in score.error_steps]
    if not errors:
        return None
    return cached_png("error-steps", errors, lambda: draw_error_histogram(errors),
                      Path(__file__))


def draw_error_histogram(errors: list[float]) -> str:
    """Draw error_histogram's histogram with matplotlib."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(6, 3.5))
    axes.hist(errors, bins=41)
    axes.set_xlabel("device - float (quantization steps)")
    axes.set_ylabel("output elements")
    return png_of(plt, figure)


def evaluation_html(document: dict[str, Any], plots: list[tuple[str, str]]) -> str:
    """One self-contained page: summary, plots, every sample."""
    rows = "".join(f"<tr><th>{html.escape(name)}</th><td>{html.escape(value)}</td></tr>"
                   for name, value in summary_rows(document))
    images = "".join(f"<h2>{html.escape(title)}</h2><img src='data:image/png;base64,{png}'>"
                     for title, png in plots)
    head = ("<tr><th>index</th><th>file</th><th>label</th><th>float</th><th>host</th>"
            "<th>device</th><th>exact</th><th>SNR</th><th>cycles</th></tr>")
    samples = "".join(
        f"<tr><td>{s['index']}</td><td>{html.escape(s['file'])}</td><td>{s['label']}</td>"
        f"<td>{s['float_class']}</td><td>{s['host_class']}</td><td>{s['device_class']}</td>"
        f"<td>{s['exact']}</td><td>{_db(s['snr_db'])}</td><td>{s['cycles']}</td></tr>"
        for s in document["samples"])
    title = f"evaluate {document['model']} on {document['target']}"
    return render_html(title, f"<h1>{html.escape(title)}</h1><table>{rows}</table>{images}"
                              f"<h2>samples</h2><table>{head}{samples}</table>")


def write_reports(run_dir: Path, document: dict[str, Any], scores: Sequence[SampleScore]) -> None:
    """evaluation.json and evaluation.html in the run directory (named in the document)."""
    plots = [(title, png) for title, png in
             (("accuracy per class", per_class_chart(document["per_class"])),
              ("error histogram", error_histogram(scores))) if png]
    document["report"] = str(run_dir / HTML_FILE)
    document["result"] = str(run_dir / JSON_FILE)
    (run_dir / HTML_FILE).write_text(evaluation_html(document, plots))
    write_json_atomic(run_dir / JSON_FILE, to_plain(document))

