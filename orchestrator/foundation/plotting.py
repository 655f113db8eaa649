"""matplotlib for the HTML reports (regress, evaluate): the Agg backend, imported only when a
report draws a plot it has not drawn before, and figures as base64 PNGs to embed.

A plot is kept by content (orchestrator.foundation.derived_cache): the same data drawn by the
same drawing module under the same matplotlib is read back, so an unchanged report imports no
matplotlib."""

from __future__ import annotations

import base64
import hashlib
import io
import json
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

from orchestrator.foundation.derived_cache import cached_table, stat_digest

PLOT_FORMAT = "png-b64-1"


def pyplot() -> Any:
    """pyplot on the Agg backend (no display needed; never imported at package import)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def png_of(plt: Any, figure: Any) -> str:
    """Render a figure to a base64 PNG string and free it."""
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def matplotlib_version() -> str:
    """The installed matplotlib's version, read without importing it."""
    try:
        return metadata.version("matplotlib")
    except metadata.PackageNotFoundError:
        return "absent"


def plot_key(name: str, data: Any, drawing_module: Path) -> str:
    """The content key of a plot: its data (JSON), the drawing module's file (an edit draws
    again) and matplotlib's version."""
    salt = stat_digest([drawing_module], f"{PLOT_FORMAT}\0{matplotlib_version()}\0{name}")
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.sha256(f"{salt}\0{text}".encode()).hexdigest()[:24]


def cached_png(name: str, data: Any, draw: Callable[[], str], drawing_module: Path) -> str:
    """The base64 PNG `draw()` makes of `data`, drawn once per content and kept on disk."""
    return str(cached_table(f"plot-{name}", plot_key(name, data, drawing_module), draw))
