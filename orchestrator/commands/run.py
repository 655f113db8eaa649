"""`invoke run`: one entry point, dispatched on the app. Each app handler builds, simulates
and returns a RunResult; this module writes it under scratch/runs/<id>/ and prints it.

Apps register here by name -> "module:function" (imported only when used); the ExecuTorch
runner (issue #6) adds "runner" with its own handler reading RunRequest.model; `--elf`
selects "elf", an upstream-built runner ELF read with the upstream log parser (issue #7).
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from orchestrator.cli import print_json, resolve
from orchestrator.firmware_build.config import app_names
from orchestrator.options import RunnerSettings, RunRequest
from orchestrator.paths import Scratch, scratch
from orchestrator.results import RunResult, Status
from orchestrator.results.record import write_result
from orchestrator.results.summary_table import format_result, print_result
from orchestrator.sim.session import interrupted_result
from orchestrator.targets.catalogue import unknown_name_error

APPS: dict[str, str] = {
    "selftest": "orchestrator.selftest:run_app",
    "npuselftest": "orchestrator.npu_selftest.handler:run_npu_selftest",
    "runner": "orchestrator.evaluate.run_inputs:run_model",
    "elf": "orchestrator.upstream_elf:run_upstream_elf",
    "pte": "orchestrator.artifacts.run:run_pte",
}
PROTOCOL_APP = "orchestrator.selftest:run_app"   # an app under firmware/apps/ without its own
__all__ = ["APPS", "RunRequest", "RunnerSettings", "execute", "run_command"]


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt (the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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


def run_command(request: RunRequest, json: bool = False) -> int:
    """CLI entry: run, print the table (or JSON); exit 0 only when the run passed. SIGTERM
    stops the run like Ctrl-C (the simulator is stopped, result.json says interrupted)."""
    request = request.resolved()
    with terminate_as_interrupt():
        result = execute(request)
    if json:
        print_json(result.to_dict())
    elif request.app == "elf":
        print_result(result)
    else:
        print(format_result(result))
    return 0 if result.status is Status.PASS else 1
