"""Fixtures of the model-name tests: a private scratch tree (exported). The weights mirror is
tests/conftest.py's file_server."""

from __future__ import annotations

import pytest

from orchestrator.foundation.paths import SCRATCH_ENV, Scratch, scratch


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Scratch:
    """A private scratch/ (also exported, so nothing touches the repo's scratch/)."""
    root = tmp_path / "scratch"
    monkeypatch.setenv(SCRATCH_ENV, str(root))
    return scratch(root).ensure()
