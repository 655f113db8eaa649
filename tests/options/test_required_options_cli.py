"""Every task's required options through the real CLI, read off the tasks' option groups (a
new task or required option is covered without editing this file): left out, or given a
malformed value, each ends in one line on stderr and exit 2, never a crash report. A missing
positional (invoke build TARGET, invoke parse LOGFILE) is refused by invoke's own parser
before our code runs: one line too, with invoke's exit 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from invoke import Task

import tasks
from orchestrator.options.fields import Spec, cli_specs

ROOT = Path(__file__).resolve().parents[2]
INVOKE_PARSER_EXIT = 1

# A value each required option accepts, so that only the option under test is wrong.
VALID = {"target": "ethos-u85-128", "model": "add", "data": "{tmp}/data",
         "logfile": "{tmp}/console.log", "file": "{tmp}/console.log"}
MALFORMED = ["", "no/such"]


def _tasks() -> list[Task[Any]]:
    return [task for task in vars(tasks).values() if isinstance(task, Task)]


def _required(task: Task[Any]) -> list[Spec]:
    return [spec for spec in cli_specs(task.body.option_group) if spec.required]


CASES = [(task, spec) for task in _tasks() for spec in _required(task)]


def _argv(task: Task[Any], values: dict[str, str]) -> list[str]:
    argv = [task.name.replace("_", "-")]
    for spec in _required(task):
        if spec.name in values:
            argv += [values[spec.name]] if spec.info.positional else [f"{spec.flag}=" +
                                                                      values[spec.name]]
    return argv


def _invoke(argv: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp / "scratch")}
    env.pop("ETHOSU_ORCH_MIRROR", None)
    (tmp / "data").mkdir(exist_ok=True)
    np.save(tmp / "data" / "a.npy", np.zeros((1, 4), np.float32))
    (tmp / "console.log").write_text("no protocol here\n")
    argv = [arg.format(tmp=tmp) for arg in argv]
    return subprocess.run([sys.executable, "-m", "invoke", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


def _one_line_no_crash(done: subprocess.CompletedProcess[str], tmp: Path) -> None:
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and "a bug in" not in done.stderr
    assert not (tmp / "scratch" / "crash").exists()


def test_the_tasks_have_required_options_with_a_valid_value_here() -> None:
    assert {spec.name for _, spec in CASES} <= set(VALID)
    # run: --target may come from --pte (RunRequest.resolved refuses neither given)
    assert {task.name for task, _ in CASES} >= {"build", "parse", "evaluate", "inspect"}


@pytest.mark.parametrize(("task", "spec"), CASES,
                         ids=[f"{task.name}-{spec.name}" for task, spec in CASES])
def test_a_missing_required_option_is_named_in_one_line(task: Task[Any], spec: Spec,
                                                        tmp_path: Path) -> None:
    values = {name: value for name, value in VALID.items() if name != spec.name}
    done = _invoke(_argv(task, values), tmp_path)
    _one_line_no_crash(done, tmp_path)
    if spec.info.positional:
        assert done.returncode == INVOKE_PARSER_EXIT
        assert f"did not receive required positional arguments: '{spec.name}'" in done.stderr
    else:
        assert done.returncode == 2, done.stderr
        assert f"error: {spec.flag} is required" in done.stderr
        assert f"next: invoke {task.name}" in done.stderr


@pytest.mark.parametrize("value", MALFORMED)
@pytest.mark.parametrize(("task", "spec"), CASES,
                         ids=[f"{task.name}-{spec.name}" for task, spec in CASES])
def test_a_malformed_required_option_is_one_line_and_exit_2(task: Task[Any], spec: Spec,
                                                            value: str,
                                                            tmp_path: Path) -> None:
    done = _invoke(_argv(task, {**VALID, spec.name: value}), tmp_path)
    _one_line_no_crash(done, tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: ")
    if not value:
        assert f"{spec.flag} '' is not a name" in done.stderr
