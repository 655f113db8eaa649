"""docs/reference/commands.md is what scripts/command_reference.py generates from the option
groups: a flag added, removed or re-worded without regenerating fails here."""

from __future__ import annotations

import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def generated() -> str:
    script = runpy.run_path(str(ROOT / "scripts" / "command_reference.py"))
    text: str = script["generate"]()
    return text


def test_the_committed_reference_is_the_generated_one():
    committed = (ROOT / "docs" / "reference" / "commands.md").read_text(encoding="utf-8")
    assert committed == generated(), ("docs/reference/commands.md is stale; next: python "
                                      "scripts/command_reference.py")


def test_every_task_and_flag_is_in_it():
    from orchestrator.options.fields import cli_specs

    script = runpy.run_path(str(ROOT / "scripts" / "command_reference.py"))
    text = generated()
    for task in script["load_tasks"]():
        assert f"## invoke {task.name.replace('_', '-')}\n" in text
        for spec in cli_specs(task.body.option_group):
            assert f"`{spec.flag}`" in text
