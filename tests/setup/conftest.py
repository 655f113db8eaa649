"""Fixtures for the setup tests: a live HTTP server and a private scratch tree."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from setup_fakes import FileServer

from orchestrator.foundation.paths import SCRATCH_ENV, Scratch, scratch


@pytest.fixture
def server() -> Iterator[FileServer]:
    """A real HTTP server on 127.0.0.1 (stopped after the test)."""
    live = FileServer().start()
    yield live
    live.stop()


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Scratch:
    """A private scratch/ (also exported, so nothing can touch the repo's scratch/)."""
    root = tmp_path / "scratch"
    monkeypatch.setenv(SCRATCH_ENV, str(root))
    return scratch(root).ensure()
