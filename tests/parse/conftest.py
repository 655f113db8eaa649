"""Shared helpers: the copied upstream transcripts and their parsed RunResults."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from orchestrator.parse import parse_text, result_from_facts
from orchestrator.parse.result import parse_log
from orchestrator.results import RunResult, validate

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


def _lines_of(name: str) -> list[str]:
    return transcript(name).read_text(encoding="utf-8").splitlines()


def _result_of(lines: list[str]) -> RunResult:
    result = result_from_facts(parse_text("\n".join(lines) + "\n"))
    validate(result.to_dict())
    return result


@pytest.fixture
def lines_of():
    """lines_of('file.log') -> the copied transcript's lines, unchanged."""
    return _lines_of


@pytest.fixture
def result_of():
    """result_of([...]) -> the schema-valid RunResult of these lines parsed as one log."""
    return _result_of
