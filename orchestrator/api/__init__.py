"""The Python API: the jobs `invoke` runs, for scripts, notebooks and test suites.

    from orchestrator import api

    report = api.run(target="ethos-u85-128", model="convnet", sim="qemu")
    assert report.passed, report.diagnosis
    print(report.to_json())

Each job takes the keyword arguments its `invoke` task takes as flags (`--idle-timeout 30`
is `idle_timeout=30`, `--no-delegate` is `no_delegate=True` or `delegate=False`, a repeatable
flag takes a list), builds the same request the command line builds and runs the same code
(the commands call these functions and only print). Two keywords are the API's own:
`scratch` (the scratch/ directory: products, builds and runs; default as the CLI's:
$ETHOSU_ORCH_SCRATCH, else <checkout>/scratch) and `quiet` (no step progress on stderr).

Every job returns a typed report (orchestrator.api.reports): `.passed`, a one-line
`.diagnosis`, the headline `.numbers()`, and `.to_dict()` / `.to_json()` (what `--json`
prints). A failure the user can act on raises OrchestratorError, whose `.message` is the
CLI's one line (the cause, then `next:` the command to run) and `.cause` / `.next_step`
its parts. Importing this module loads no torch: a job imports what it needs when called.
The flags of every job: docs/reference/commands.md.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from orchestrator.foundation.errors import OrchestratorError

if TYPE_CHECKING:
    from orchestrator.api.reports import (
        CompileReport,
        EvaluateReport,
        InspectReport,
        RegressReport,
        RunReport,
        VerifyReport,
    )

__all__ = ["OrchestratorError", "compile", "evaluate", "inspect", "regress", "run", "verify"]

Scratch = str | os.PathLike[str] | None
Group = TypeVar("Group")
Report = TypeVar("Report")


def compile(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> CompileReport:
    """`invoke compile`: a model's .pte for one or more targets, with its Vela and
    delegation reports (cached by content)."""
    from orchestrator.api.compile_job import compile_with
    from orchestrator.options.compile import CompileTask

    return _job("compile", CompileTask, compile_with, scratch, quiet, flags)


def run(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> RunReport:
    """`invoke run`: build, simulate and parse; the report's `.result` is the RunResult."""
    from orchestrator.api.run_job import run_with
    from orchestrator.options.run import RunRequest

    return _job("run", RunRequest, run_with, scratch, quiet, flags)


def verify(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> VerifyReport:
    """`invoke verify`: every NPU partition on the NPU model vs the TOSA
    reference, bit for bit (`.exact`; `.diagnosis` names the first departing operation)."""
    from orchestrator.api.verify_job import verify_with
    from orchestrator.options.inspect import VerifyTask

    return _job("verify", VerifyTask, verify_with, scratch, quiet, flags)


def evaluate(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> EvaluateReport:
    """`invoke evaluate`: a data set through one simulator session, scored per sample."""
    from orchestrator.api.evaluate_job import evaluate_with
    from orchestrator.options.evaluate import EvaluateRequest

    return _job("evaluate", EvaluateRequest, evaluate_with, scratch, quiet,
                flags)


def regress(*, scratch: Scratch = None, **flags: Any) -> RegressReport:
    """`invoke regress`: a matrix of models x targets against its baselines (`quiet` is the
    task's own flag here: no live table)."""
    from orchestrator.api.regress_job import regress_with
    from orchestrator.options.regress import RegressTask

    quiet = bool(flags.get("quiet"))
    return _job("regress", RegressTask, regress_with, scratch, quiet, flags)


def inspect(*, scratch: Scratch = None, **flags: Any) -> InspectReport:
    """`invoke inspect`: what a .pte or .bpte holds (its delegates' targets, its methods) and
    whether the pinned runtime can run it (`.passed`; `.diagnosis` names every reason not)."""
    from orchestrator.api.inspect_job import inspect_with
    from orchestrator.options.artifact import InspectTask

    return _job("inspect", InspectTask, inspect_with, scratch, True, flags)


def _job(name: str, group: type[Group], function: Callable[[Group], Report], scratch: Scratch,
         quiet: bool, flags: dict[str, Any]) -> Report:
    """Build the job's option group from the flags and run it on `scratch`: the same group
    and function the command line uses (tasks.py builds the group, orchestrator.commands
    calls the function). Each job above imports its pair when called, so importing this
    module stays cheap."""
    from orchestrator.api.flags import request_from, scratch_root
    from orchestrator.foundation.progress import quiet_if

    request = request_from(group, flags, name)
    quiet_if(quiet)
    with scratch_root(scratch):
        return function(request)
