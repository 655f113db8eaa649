"""`inspect`: what a .pte or .bpte made anywhere holds, and whether the pinned runtime can run
it (orchestrator.artifacts reads it without torch)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.api.reports import InspectReport
from orchestrator.artifacts.inspection import inspect_artifact
from orchestrator.options.artifact import InspectTask


def inspect_with(task: InspectTask) -> InspectReport:
    """The artifact the task names, inspected."""
    return InspectReport(inspect_artifact(Path(task.file)))
