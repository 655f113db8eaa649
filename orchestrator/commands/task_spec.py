"""A task as data: the command it calls, its option group, its help and its presentation
flags. invoke's tasks (orchestrator.commands.task_options) and the invoke-free entry
(orchestrator.commands.direct) are both made from these, so a flag is defined once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.foundation.cli import resolve, run_callable
from orchestrator.options import RunRequest
from orchestrator.options.fields import from_cli

QUIET_HELP = "no step progress on stderr"


@dataclass(frozen=True)
class TaskSpec:
    """`reference` ('module:function') is called with `group` built from the task's flags
    and the presentation flags (name -> (default, help), e.g. json) as keywords."""

    reference: str
    group: type
    name: str
    doc: str
    flags: Mapping[str, tuple[Any, str]] = field(default_factory=dict)


RUN = TaskSpec(
    "orchestrator.commands.run:run_command", RunRequest, name="run",
    doc="Build, simulate and parse: prints a result table, writes scratch/runs/<id>/.",
    flags={"json": (False, "print the RunResult document as JSON"),
           "quiet": (False, QUIET_HELP)},
)


def run_with_options(reference: str, group: type, values: dict[str, Any], task: str = "",
                     **flags: Any) -> None:
    """Build the task's option group from its flags (one-line error on a bad or missing value,
    naming `invoke <task>`), then call the command with the group and the task's own
    presentation flags (e.g. json)."""
    silent = bool(flags.pop("quiet", False))

    def command() -> int | None:
        code: int | None = resolve(reference)(from_cli(group, values, task), **flags)
        return code

    run_callable(command, silent)
