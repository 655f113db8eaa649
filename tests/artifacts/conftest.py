"""Foreign artifacts (made by executorch's own APIs, not by our compile), written once per
test session."""

from __future__ import annotations

from pathlib import Path

import pytest
from foreign_artifacts import cached_artifacts


@pytest.fixture(scope="session")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """U55 and U85 .pte files, a U85 .bpte with three test cases and an XNNPACK .pte."""
    pytest.importorskip("executorch.backends.arm.ethosu", reason="needs executorch[ethos-u]")
    return cached_artifacts(tmp_path_factory.getbasetemp())
