"""invoke tasks, pins and import cost, exercised through real subprocesses."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

from orchestrator.foundation.pins import python_pin
from orchestrator.foundation.tomlfile import load_toml

REPO = Path(__file__).resolve().parents[2]


def invoke(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "invoke", *args], cwd=REPO, text=True,
                          capture_output=True, timeout=120, env=env, check=False)


def test_aot_extra_agrees_with_the_pins_file() -> None:
    extra = load_toml(REPO / "pyproject.toml")["project"]["optional-dependencies"]["aot"]
    assert f"torch=={python_pin('torch')}" in extra
    assert f"executorch[ethos-u]=={python_pin('executorch')}" in extra


def test_every_task_and_flag_has_help() -> None:
    import inspect

    from invoke import Task

    import tasks

    # invoke's Task.get_arguments() pops each flag's help out of task.help; a test that parsed a
    # task's flags earlier in this process (tests/options) leaves it empty: read fresh tasks.
    tasks = importlib.reload(tasks)
    listing = invoke("--list")
    assert listing.returncode == 0, listing.stderr
    found = {name: obj for name, obj in vars(tasks).items() if isinstance(obj, Task)}
    assert {"targets", "doctor"} <= set(found)
    for name, task_obj in found.items():
        assert task_obj.__doc__ and task_obj.__doc__.strip(), f"{name} has no one-line help"
        assert task_obj.name.replace("_", "-") in listing.stdout
        params = list(inspect.signature(task_obj.body).parameters)[1:]
        missing = [p for p in params if p not in task_obj.help]
        assert not missing, f"task {name}: flags without help: {missing}"


def test_targets_json_lists_the_catalogue() -> None:
    result = invoke("targets", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert rows["ethos-u85-128"]["fvp_binary"] == "FVP_Corstone_SSE-320"
    assert rows["cortex-m55"]["simulators"] == ["qemu", "fvp-corstone-300-u55"]


def test_unknown_target_is_one_line_and_exit_2() -> None:
    result = invoke("doctor", "--target", "ethos-u85-100")
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "did you mean" in lines[0] and "ethos-u85-" in lines[0]


def test_importing_the_package_and_listing_tasks_does_not_import_torch() -> None:
    code = ("import sys, orchestrator, orchestrator.targets, orchestrator.setup.doctor, "
            "orchestrator.targets.listing; import tasks; "
            "print('torch' in sys.modules, 'executorch' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, text=True,
                            capture_output=True, timeout=60, check=True)
    assert result.stdout.split() == ["False", "False"]
