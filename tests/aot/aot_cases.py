"""Shared constants and helpers of the AOT tests (unique module name: importable anywhere)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REAL_MODELS = ("add", "convnet")
REAL_TARGETS = ("ethos-u55-128", "ethos-u85-128", "cortex-m55")
REAL_CASES = [(model, target) for model in REAL_MODELS for target in REAL_TARGETS]
MODEL_FILES = Path(__file__).resolve().parent / "models"


def needs_executorch() -> None:
    """Skip (one line) when the AOT extra is not installed."""
    if importlib.util.find_spec("torch") is None or importlib.util.find_spec(
            "executorch.backends.arm") is None:
        pytest.skip("torch/executorch not installed (pip install -e '.[aot]')")
