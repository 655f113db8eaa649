"""`run`: one entry point, dispatched on the app (orchestrator.apps.registry: the model app
"runner", the protocol self-test and other declared apps, the NPU self-test, "elf" (an
upstream-built runner ELF, `--elf`) and "pte" (a ready artifact, `--pte`)). The app builds,
simulates and returns a RunResult; this module writes it under scratch/runs/<id>/."""

from __future__ import annotations

from pathlib import Path

from orchestrator.api.run_report import RunReport
from orchestrator.apps.registry import app_named
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.options import RunRequest
from orchestrator.results import RunResult
from orchestrator.results.record import write_result
from orchestrator.sim.session import interrupted_result


def run_dir_for(work: Scratch, run_id: str) -> Path:
    """scratch/runs/<run id>/."""
    return work.runs / run_id


def execute(request: RunRequest, work: Scratch | None = None) -> RunResult:
    """Run the request's app (orchestrator.apps.registry); write result.json next to the
    transcript. An unnamed app is resolved as `invoke run` does (RunRequest.resolved)."""
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


def run_with(request: RunRequest, work: Scratch | None = None) -> RunReport:
    """Resolve the request as `invoke run` does and run it; the RunResult is written to
    scratch/runs/<run id>/result.json."""
    return RunReport(execute(request.resolved(), work))
