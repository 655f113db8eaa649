"""`run`: one entry point, dispatched on the app. Each app handler builds, simulates and
returns a RunResult; this module writes it under scratch/runs/<id>/.

Apps register here by name -> "module:function" (imported only when used); the ExecuTorch
runner adds "runner" with its own handler reading RunRequest.model; `--elf` selects "elf",
an upstream-built runner ELF read with the upstream log parser.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.api.reports import RunReport
from orchestrator.cli import resolve
from orchestrator.firmware_build.config import app_names
from orchestrator.options import RunRequest
from orchestrator.paths import Scratch, scratch
from orchestrator.results import RunResult
from orchestrator.results.record import write_result
from orchestrator.sim.session import interrupted_result
from orchestrator.targets.catalogue import unknown_name_error

APPS: dict[str, str] = {
    "selftest": "orchestrator.selftest:run_app",
    "npuselftest": "orchestrator.npu_selftest.handler:run_npu_selftest",
    "runner": "orchestrator.evaluate.run_inputs:run_model",
    "elf": "orchestrator.upstream_elf:run_upstream_elf",
}
PROTOCOL_APP = "orchestrator.selftest:run_app"   # an app under firmware/apps/ without its own

def run_dir_for(work: Scratch, run_id: str) -> Path:
    """scratch/runs/<run id>/."""
    return work.runs / run_id


def execute(request: RunRequest, work: Scratch | None = None) -> RunResult:
    """Run the request's app handler; write result.json next to the transcript. An unnamed
    app is resolved as `invoke run` does (RunRequest.resolved)."""
    if request.app is None:
        request = request.resolved()
    handler = handler_of(str(request.app))
    work = (work or scratch()).ensure()
    try:
        result: RunResult = resolve(handler)(request, work)
    except KeyboardInterrupt:
        record(work, interrupted_result(request.run_id, run_dir_for(work, request.run_id),
                                        request.target, request.sim, request.model))
        raise
    return record(work, result)


def handler_of(app: str) -> str:
    """The handler of `app`: its own (APPS), else the protocol app flow for an app the
    firmware project declares (firmware/apps/<app>, orchestrator/data/firmware.toml)."""
    if app in APPS:
        return APPS[app]
    if app in app_names():
        return PROTOCOL_APP
    raise unknown_name_error("app", app, sorted({*APPS, *app_names()}), "invoke run --help")


def record(work: Scratch, result: RunResult) -> RunResult:
    """result.json in the run's directory (named in the result's artifacts)."""
    write_result(run_dir_for(work, result.run_id), result)
    return result


def run_with(request: RunRequest, work: Scratch | None = None) -> RunReport:
    """Resolve the request as `invoke run` does and run it; the RunResult is written to
    scratch/runs/<run id>/result.json."""
    return RunReport(execute(request.resolved(), work))
