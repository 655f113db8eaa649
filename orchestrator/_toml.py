"""TOML loading that works on Python 3.10 (tomli) and 3.11+ (tomllib)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on 3.10
    import tomli as tomllib

DATA_DIR = Path(__file__).resolve().parent / "data"


def load_toml(path: Path) -> dict[str, Any]:
    """Parse one TOML file into a dict."""
    with path.open("rb") as handle:
        return tomllib.load(handle)
