"""Helpers of the toolset tests."""

from __future__ import annotations

import importlib.util

import pytest


def needs_aot() -> None:
    """Skip unless the pinned AOT stack is installed (the A/B's first toolset runs here)."""
    for module in ("torch", "executorch.backends.arm", "tosa_reference_model"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not installed (pip install -e '.[aot]')")
