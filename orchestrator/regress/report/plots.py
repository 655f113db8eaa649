"""matplotlib plots for the HTML report (Agg backend, imported only when a report is drawn)."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from orchestrator.foundation.plotting import cached_png, png_of, pyplot
from orchestrator.regress.report.records import CellRecord

CYCLE_METRICS = ("npu.cycles", "cpu.cycles", "vela.npu_cycles", "vela.total_cycles")
MEMORY_METRICS = ("memory.pte_size", "vela.sram_used_kib", "vela.offchip_flash_used_kib")


def metric_table(cells: list[CellRecord], metric: str) -> dict[str, dict[str, float]]:
    """{model: {target: value}} for one metric over the cells that have it."""
    table: dict[str, dict[str, float]] = defaultdict(dict)
    for cell in cells:
        value = cell.metrics.get(metric)
        if value is not None:
            table[f"{cell.model} [{cell.options}]"][cell.target] = value
    return dict(table)


def grouped_bars(title: str, metric: str, table: dict[str, dict[str, float]]) -> str:
    """A grouped bar chart (models on x, one bar per target) as a base64 PNG (kept by
    content: an unchanged table is not drawn again)."""
    return cached_png("bars", [title, metric, table],
                      lambda: draw_grouped_bars(title, metric, table), Path(__file__))


def draw_grouped_bars(title: str, metric: str, table: dict[str, dict[str, float]]) -> str:
    """Draw grouped_bars' chart with matplotlib."""
    plt = pyplot()
    models = sorted(table)
    targets = sorted({target for row in table.values() for target in row})
    width = 0.8 / max(1, len(targets))
    figure, axes = plt.subplots(figsize=(max(6, 1.2 * len(models) * max(1, len(targets)) / 2),
                                         3.6))
    for index, target in enumerate(targets):
        positions = [m + index * width for m in range(len(models))]
        axes.bar(positions, [table[model].get(target, 0) for model in models], width,
                 label=target)
    axes.set_xticks([m + width * (len(targets) - 1) / 2 for m in range(len(models))])
    axes.set_xticklabels(models, rotation=20, ha="right", fontsize=8)
    axes.set_ylabel(metric)
    values = [v for row in table.values() for v in row.values() if v > 0]
    if values and max(values) / min(values) > 100:
        axes.set_yscale("log")
    axes.set_title(title)
    axes.legend(fontsize=7)
    return png_of(plt, figure)


def delta_bars(deltas: list[tuple[str, float, bool]]) -> str:
    """Relative change vs baseline per (cell, metric); out-of-tolerance bars in red (kept by
    content like grouped_bars)."""
    return cached_png("deltas", deltas, lambda: draw_delta_bars(deltas), Path(__file__))


def draw_delta_bars(deltas: list[tuple[str, float, bool]]) -> str:
    """Draw delta_bars' chart with matplotlib."""
    plt = pyplot()
    figure, axes = plt.subplots(figsize=(8, max(2.0, 0.3 * len(deltas) + 1)))
    labels = [label for label, _, _ in deltas]
    axes.barh(range(len(deltas)), [100 * value for _, value, _ in deltas],
              color=["tab:green" if ok else "tab:red" for _, _, ok in deltas])
    axes.set_yticks(range(len(deltas)))
    axes.set_yticklabels(labels, fontsize=7)
    axes.axvline(0, color="black", linewidth=0.8)
    axes.set_xlabel("change vs baseline (%)")
    axes.set_title("Delta vs baseline (red: out of tolerance)")
    return png_of(plt, figure)


def report_plots(cells: list[CellRecord]) -> list[tuple[str, str]]:
    """(caption, base64 PNG) for cycles and memory per model x target and deltas vs baseline."""
    plots = []
    for group, title in ((CYCLE_METRICS, "Cycles"), (MEMORY_METRICS, "Memory")):
        for metric in group:
            table = metric_table(cells, metric)
            if table:
                caption = f"{title}: {metric} per model × target"
                plots.append((caption, grouped_bars(caption, metric, table)))
    deltas = [(f"{cell.key} {delta.metric}", float(delta.relative), delta.ok)
              for cell in cells for delta in (cell.baseline.deltas if cell.baseline else [])
              if delta.relative is not None]
    if deltas:
        plots.append(("Delta vs baseline", delta_bars(deltas[:60])))
    return plots
