"""`invoke run`: one entry point, dispatched on the app (orchestrator.apps.registry: the
model app "runner", the protocol self-test and other declared apps, the NPU self-test, and
"elf", an upstream-built runner ELF selected by `--elf`). The app builds, simulates and returns
a RunResult; this module writes it under scratch/runs/<id>/ and prints it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from orchestrator.apps.app import Firmware
from orchestrator.apps.registry import app_named
from orchestrator.cli import print_json
from orchestrator.options import RunnerSettings, RunRequest
from orchestrator.paths import Scratch, scratch
from orchestrator.results import RunResult, Status
from orchestrator.results.record import write_result
from orchestrator.results.summary_table import format_result, print_result
from orchestrator.sim.session import interrupted_result

__all__ = ["RunRequest", "RunnerSettings", "execute", "run_command"]


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
    """Run the request's app; write result.json next to the transcript. An unnamed app is
    resolved as `invoke run` does (RunRequest.resolved)."""
    if request.app is None:
        request = request.resolved()
    app = app_named(str(request.app))
    work = (work or scratch()).ensure()
    try:
        result = app.run(request, work)
    except KeyboardInterrupt:
        record(work, interrupted_result(request.run_id, run_dir_for(work, request.run_id),
                                        request.target, request.sim, request.model))
        raise
    return record(work, result)


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
    elif app_named(str(request.app)).firmware is Firmware.UPSTREAM_ELF:
        print_result(result)
    else:
        print(format_result(result))
    return 0 if result.status is Status.PASS else 1
