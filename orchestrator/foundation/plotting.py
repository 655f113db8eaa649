"""matplotlib for the HTML reports (regress, evaluate): the Agg backend, imported only when a
report is drawn, and figures as base64 PNGs to embed."""

from __future__ import annotations

import base64
import io
from typing import Any


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
