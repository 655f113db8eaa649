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
from typing import TYPE_CHECKING, Any

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

# job -> (its option group, the function that runs a built group): the same pair the
# command line uses (tasks.py builds the group, orchestrator.commands.<job> calls the function).
JOBS: dict[str, tuple[str, str]] = {
    "compile": ("orchestrator.options.compile:CompileTask",
                "orchestrator.api.compile_job:compile_with"),
    "run": ("orchestrator.options.run:RunRequest", "orchestrator.api.run_job:run_with"),
    "verify": ("orchestrator.options.inspect:VerifyTask",
               "orchestrator.api.verify_job:verify_with"),
    "evaluate": ("orchestrator.options.evaluate:EvaluateRequest",
                 "orchestrator.api.evaluate_job:evaluate_with"),
    "regress": ("orchestrator.options.regress:RegressTask",
                "orchestrator.api.regress_job:regress_with"),
    "inspect": ("orchestrator.options.artifact:InspectTask",
                "orchestrator.api.inspect_job:inspect_with"),
}


def compile(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> CompileReport:
    """`invoke compile`: a model's .pte for one or more targets, with its Vela and
    delegation reports (cached by content)."""
    report: CompileReport = _job("compile", scratch, quiet, flags)
    return report


def run(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> RunReport:
    """`invoke run`: build, simulate and parse; the report's `.result` is the RunResult."""
    report: RunReport = _job("run", scratch, quiet, flags)
    return report


def verify(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> VerifyReport:
    """`invoke verify`: every NPU partition on the functional NPU model vs the TOSA
    reference, bit for bit (`.exact`; `.diagnosis` names the first departing operation)."""
    report: VerifyReport = _job("verify", scratch, quiet, flags)
    return report


def evaluate(*, scratch: Scratch = None, quiet: bool = False, **flags: Any) -> EvaluateReport:
    """`invoke evaluate`: a data set through one simulator session, scored per sample."""
    report: EvaluateReport = _job("evaluate", scratch, quiet, flags)
    return report


def regress(*, scratch: Scratch = None, **flags: Any) -> RegressReport:
    """`invoke regress`: a matrix of models x targets against its baselines (`quiet` is the
    task's own flag here: no live table)."""
    report: RegressReport = _job("regress", scratch, bool(flags.get("quiet")), flags)
    return report


def inspect(*, scratch: Scratch = None, **flags: Any) -> InspectReport:
    """`invoke inspect`: what a .pte or .bpte holds (its delegates' targets, its methods) and
    whether the pinned runtime can run it (`.passed`; `.diagnosis` names every reason not)."""
    report: InspectReport = _job("inspect", scratch, True, flags)
    return report


def _job(name: str, scratch: Scratch, quiet: bool, flags: dict[str, Any]) -> Any:
    """Build the job's option group from the flags and run it on `scratch`."""
    from orchestrator.api.flags import request_from, scratch_root
    from orchestrator.foundation.progress import quiet_if

    group, function = _resolved(name)
    request = request_from(group, flags, name)
    quiet_if(quiet)
    with scratch_root(scratch):
        return function(request)


def _resolved(name: str) -> tuple[Any, Any]:
    """The job's option group and function (imported now, not when this module is)."""
    import importlib

    found = []
    for reference in JOBS[name]:
        module, _, attribute = reference.partition(":")
        try:
            found.append(getattr(importlib.import_module(module), attribute))
        except ModuleNotFoundError as error:
            if error.name != module:
                raise
            raise _missing(name, reference) from None
        except AttributeError:
            raise _missing(name, reference) from None
    return found[0], found[1]


def _missing(name: str, reference: str) -> OrchestratorError:
    """A job this build does not have (its option group or function is not here)."""
    return OrchestratorError(f"{name}() is not in this build of ethosu-orchestrator "
                             f"({reference} is missing)",
                             "invoke --list shows the tasks it has")
