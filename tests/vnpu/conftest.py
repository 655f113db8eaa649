"""The `sweep` marker: the exhaustive NPU-model sweep runs only when asked for (-m sweep)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "sweep" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="exhaustive NPU-model sweep: run with -m sweep")
    for item in items:
        if "sweep" in item.keywords:
            item.add_marker(skip)
