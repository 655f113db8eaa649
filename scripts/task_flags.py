"""Write orchestrator/data/task_flags.json: the invoke flags of every option group that
tasks.py names by reference (tests/options/test_task_flags.py fails while it is stale)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orchestrator.commands.task_flags import TABLE, render, table_of  # noqa: E402


def task_references() -> list[str]:
    """The group references tasks.py names (the tasks whose flags the table keeps)."""
    import importlib.util

    from invoke.tasks import Task

    spec = importlib.util.spec_from_file_location("tasks", ROOT / "tasks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [value.body.group_reference for value in vars(module).values()
            if isinstance(value, Task) and value.body.flags_kept]


def generated() -> str:
    return render(table_of(task_references()))


if __name__ == "__main__":
    TABLE.write_text(generated())
    print(f"wrote {TABLE.relative_to(ROOT)}")
