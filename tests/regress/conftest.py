"""Fixtures for the regression tests: a tmp scratch, matrix files and replay stages."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from regress_replay import UNIT_MATRIX, ReplayStages, replay_stages  # noqa: E402


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """A private scratch root for the test."""
    root = tmp_path / "scratch"
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(root))
    return root


@pytest.fixture
def unit_matrix(tmp_path) -> Path:
    """The engine-test matrix written to a file."""
    path = tmp_path / "unit.toml"
    path.write_text(UNIT_MATRIX)
    return path


@pytest.fixture
def stages() -> ReplayStages:
    return replay_stages()
