"""Shared helpers: the copied upstream transcripts and their parsed RunResults."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from orchestrator.parse.result import parse_log
from orchestrator.results import RunResult

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def transcript(name: str) -> Path:
    """Path of a copied transcript (see tests/fixtures/transcripts/INDEX.md)."""
    return TRANSCRIPTS / name


@cache
def _parsed(name: str) -> RunResult:
    return parse_log(transcript(name))


@pytest.fixture
def transcripts_dir() -> Path:
    """The folder of copied transcripts."""
    return TRANSCRIPTS


@pytest.fixture
def parsed():
    """parsed('file.log') -> its RunResult (parsed once per session, no ETDump dir)."""
    return _parsed
