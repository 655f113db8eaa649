"""task_flags.json is the option groups' flags as they are, and tasks.py loads from it without
importing the groups of the tasks that do not run."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path

from orchestrator.commands.task_flags import TABLE

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_is_what_the_groups_generate():
    script = runpy.run_path(str(ROOT / "scripts" / "task_flags.py"))
    assert TABLE.read_text() == script["generated"](), (
        "orchestrator/data/task_flags.json is stale; next: python scripts/task_flags.py")


def test_loading_tasks_imports_only_the_run_tasks_option_groups():
    probe = ("import sys, tasks; print(' '.join(sorted(m for m in sys.modules "
             "if m.startswith('orchestrator.options.'))))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    loaded = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, check=True,
                            capture_output=True, text=True).stdout.split()
    assert "orchestrator.options.run" in loaded
    for group in ("artifact", "build", "evaluate", "inspect", "isa_check", "parse", "products",
                  "regress", "setup"):
        assert f"orchestrator.options.{group}" not in loaded


def test_a_task_named_by_reference_builds_its_group_when_it_runs(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    listed = subprocess.run([sys.executable, "-m", "invoke", "--search-root", str(ROOT),
                             "targets", "--json"], cwd=tmp_path, env=env, check=False,
                            capture_output=True, text=True)
    assert listed.returncode == 0, listed.stderr
    assert '"ethos-u85-128"' in listed.stdout
