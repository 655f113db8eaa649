"""Every task is made from its option group: the flags, positionals, repeatables and short
flags invoke parses are read off the group (tasks.py lists none), and the library command
takes the group itself."""

from __future__ import annotations

from typing import Any

import pytest
from invoke import Task

import tasks
from orchestrator.options.fields import from_cli
from orchestrator.options.parse import ParseTask
from orchestrator.options.regress import RegressTask


def arguments(task: Task[Any]) -> dict[str, Any]:
    return {arg.name: arg for arg in task.get_arguments()}


def test_parse_and_build_keep_their_positional_argument() -> None:
    assert tasks.parse.positional == ["logfile"]
    assert tasks.build.positional == ["target"]
    assert arguments(tasks.build)["option"].kind is list


@pytest.mark.parametrize(("task", "shorts"), [
    (tasks.regress, {"matrix": "m", "jobs": "j", "shard": "s", "filter": "f", "require": "e",
                     "rerun_failed": "r", "json": "o", "quiet": "q"}),
    (tasks.regress_merge, {"reports": "r", "out": "o", "json": "j", "quiet": "q"}),
    (tasks.parse, {"logfile": "l", "etdump_dir": "e", "target": "t", "json": "j"}),
    (tasks.doctor, {"target": "t", "json": "j"}),
    (tasks.verify, {"model": "m", "target": "t", "json": "j"}),
])
def test_short_flags_are_the_ones_users_type(task: Task[Any], shorts: dict[str, str]) -> None:
    found = arguments(task)
    assert {name: found[name].names[1] for name in shorts} == shorts


def test_build_has_no_short_flags() -> None:
    assert all(len(arg.names) == 1 for arg in tasks.build.get_arguments())


def test_a_group_comes_from_the_flags_invoke_parsed() -> None:
    task = from_cli(RegressTask, {"matrix": "m.toml", "jobs": "3", "rerun_failed": True,
                                  "filter": None})
    assert task == RegressTask(matrix="m.toml", jobs="3", rerun_failed=True)
    assert from_cli(ParseTask, {"logfile": "x.log"}).etdump_dir is None
