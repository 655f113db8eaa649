"""`invoke inspect FILE`: print what a .pte or .bpte holds (text or JSON); exit 0 when the
pinned runtime can run it, 1 when it cannot (the reasons are printed)."""

from __future__ import annotations

from orchestrator.api.inspect_job import inspect_with
from orchestrator.artifacts.render import render_inspection
from orchestrator.foundation.cli import print_json
from orchestrator.options.artifact import InspectTask

EXIT_NOT_RUNNABLE = 1


def inspect_command(task: InspectTask, json: bool = False) -> int:
    """CLI entry of `invoke inspect`."""
    report = inspect_with(task)
    document = report.to_dict()
    if json:
        print_json(document)
    else:
        print(render_inspection(document))
    return 0 if report.passed else EXIT_NOT_RUNNABLE
