"""The `sweep` marker, suite-wide: exhaustive sweeps and large data sets run only when asked
for (-m sweep); a representative slice runs by default."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if "sweep" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="exhaustive sweep or large data set: run with -m sweep")
    for item in items:
        if "sweep" in item.keywords:
            item.add_marker(skip)
