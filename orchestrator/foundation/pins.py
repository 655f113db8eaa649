"""Read the version pins (orchestrator/data/pins.toml): the single source of truth."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from orchestrator.foundation.tomlfile import DATA_DIR, load_toml

PINS_PATH = DATA_DIR / "pins.toml"


@lru_cache(maxsize=1)
def load_pins() -> dict[str, Any]:
    """The parsed pins file."""
    return load_toml(PINS_PATH)


def python_pin(package: str) -> str:
    """The pinned version of a Python package (KeyError if unpinned)."""
    return str(load_pins()["python"][package])
