"""A matrix option set read through the option groups: which keys exist, their types, and
the typed request each stage of a cell takes (the run request, the compile choices)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import check_keys, from_matrix, matrix_keys
from orchestrator.options.run import RunRequest
from orchestrator.regress.plan.cells import Cell
from orchestrator.sim.plan import Placement, place
from orchestrator.targets import load_catalogue
from orchestrator.targets.runner_data import runner_data

OPTION_GROUPS: tuple[type, ...] = (RunRequest,)   # its compile choices included
OPTION_KEYS = matrix_keys(*OPTION_GROUPS)


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
    simulator, timeout, model); without idle_timeout_s the simulator's catalogue watchdog
    applies (QEMU 20 s, none on an FVP)."""
    request = from_matrix(RunRequest, cell.option_dict, f"option set {cell.options_name}",
                          {"target": cell.target, "app": app, "sim": cell.sim,
                           "timeout_s": cell.timeout_s,
                           "model": cell.model if app == "runner" else None})
    if "kernel_set" not in cell.option_dict:
        # Baselines hold section sizes: the ELF must not depend on which models ran before.
        regress_set = runner_data().regress_kernel_set
        request = replace(request, runner=replace(request.runner, kernel_set=regress_set))
    return request


def cell_placement(cell: Cell) -> Placement:
    """The cell's target placed on its simulator (orchestrator.sim.plan.place: the one
    answer to whether it runs there and with which NPU executor)."""
    return place(load_catalogue().target(cell.target), cell.simulator)
