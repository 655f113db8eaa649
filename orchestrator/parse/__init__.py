"""Upstream console logs (runner, run_fvp.sh, FVP, QEMU, Zephyr, Vela) -> facts -> RunResult."""

from __future__ import annotations

from orchestrator.parse.classify import (
    classify,
    make_classification,
    next_step_for,
    status_of,
)
from orchestrator.parse.facts import LogFacts, Problem
from orchestrator.parse.result import parse_log, result_from_facts
from orchestrator.parse.upstream import UpstreamLogParser, parse_file, parse_text

__all__ = [
    "LogFacts",
    "Problem",
    "UpstreamLogParser",
    "classify",
    "make_classification",
    "next_step_for",
    "parse_file",
    "parse_log",
    "parse_text",
    "result_from_facts",
    "status_of",
]
