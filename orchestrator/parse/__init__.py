"""Upstream console logs (runner, run_fvp.sh, FVP, QEMU, Zephyr, Vela) -> facts -> RunResult.

The console-log parser's names load on first use (PEP 562): a run that reads only the
runner's protocol stream (classify, facts) never builds its line tables."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from orchestrator.parse.classify import (
    classify,
    make_classification,
    next_step_for,
    status_of,
)
from orchestrator.parse.facts import LogFacts, Problem

if TYPE_CHECKING:
    from orchestrator.parse.result import parse_log, result_from_facts
    from orchestrator.parse.upstream import UpstreamLogParser, parse_file, parse_text

# The console-log parser's names, loaded on first use. The classifier and the facts are
# imported above: a protocol run needs them, and a lazy `classify` would be shadowed by its
# own submodule (importing orchestrator.parse.classify sets the package's attribute).
_HOMES = {
    "parse_log": "result", "result_from_facts": "result", "UpstreamLogParser": "upstream",
    "parse_file": "upstream", "parse_text": "upstream",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{home}"), name)
