"""`invoke inspect FILE`: print what a .pte or .bpte holds (text or JSON); exit 0 when the
pinned runtime can run it, 1 when it cannot (the reasons are printed)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.artifacts.inspection import inspect_artifact
from orchestrator.artifacts.render import render_inspection
from orchestrator.foundation.cli import print_json
from orchestrator.options.artifact import InspectTask

EXIT_NOT_RUNNABLE = 1


def inspect_command(task: InspectTask, json: bool = False) -> int:
    """CLI entry of `invoke inspect`."""
    inspection = inspect_artifact(Path(task.file))
    document = inspection.to_dict()
    if json:
        print_json(document)
    else:
        print(render_inspection(document))
    return 0 if inspection.runnable else EXIT_NOT_RUNNABLE
