"""A matrix option set read through the option groups: which keys exist, their types, and
the typed request each stage of a cell takes (the run request, the compile choices)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import check_keys, from_matrix, matrix_keys
from orchestrator.options.run import RunRequest
from orchestrator.regress.cells import Cell

OPTION_GROUPS: tuple[type, ...] = (RunRequest, CompileChoices)
OPTION_KEYS = matrix_keys(*OPTION_GROUPS)
DEFAULT_IDLE_S = 30.0


def check_option_set(values: Mapping[str, Any], where: str, next_step: str) -> None:
    """Refuse a key that is not an option (naming the known ones) or a value of the wrong
    type, at load time rather than in the middle of a run."""
    check_keys(values, OPTION_KEYS, where, next_step)
    compile_choices(values, where)
    from_matrix(RunRequest, values, where, {"target": "-"})


def compile_choices(values: Mapping[str, Any], where: str = "option set") -> CompileChoices:
    """The compile stage's part of an option set."""
    return from_matrix(CompileChoices, values, where)


def run_request(cell: Cell, app: str) -> RunRequest:
    """The run request for one cell: its option set plus what the lane fixes (target,
    simulator, timeout, model); the idle watchdog defaults to min(30 s, the timeout)."""
    request = from_matrix(RunRequest, cell.option_dict, f"option set {cell.options_name}",
                          {"target": cell.target, "app": app, "sim": cell.sim,
                           "timeout_s": cell.timeout_s,
                           "model": cell.model if app == "runner" else None})
    if request.idle_timeout_s is None:
        return replace(request, idle_timeout_s=min(DEFAULT_IDLE_S, cell.timeout_s))
    return request
