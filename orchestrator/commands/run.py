"""`invoke run`: run the request (orchestrator.api.run_job writes the RunResult
under scratch/runs/<id>/) and print it."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from orchestrator.foundation.paths import scratch
from orchestrator.options import RunnerSettings, RunRequest
from orchestrator.runner.early_start import early_start

__all__ = ["RunRequest", "RunnerSettings", "run_command"]


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


def run_command(request: RunRequest, json: bool = False) -> int:
    """CLI entry: run, print the table (or JSON); exit 0 only when the run passed. SIGTERM
    stops the run like Ctrl-C (the simulator is stopped, result.json says interrupted)."""
    request, work = request.resolved(), scratch()
    with terminate_as_interrupt(), early_start(request, work):
        # the run's modules are imported here: a warm run's simulator is already running
        from orchestrator.api.run_job import run_with

        report = run_with(request, work)
    from orchestrator.apps.app import Firmware
    from orchestrator.apps.registry import app_named
    from orchestrator.foundation.cli import print_json
    from orchestrator.results.summary_table import format_result, print_result

    result = report.result
    if json:
        print_json(result.to_dict())
    elif app_named(str(request.app)).firmware is Firmware.UPSTREAM_ELF:
        print_result(result)
    else:
        print(format_result(result))
    return 0 if report.passed else 1
