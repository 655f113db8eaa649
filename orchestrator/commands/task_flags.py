"""Each option group's invoke flags as a checked-in table (orchestrator/data/task_flags.json),
so tasks.py makes its tasks without importing every option group: a task's group is imported
when it runs (`invoke run` loads the run's options only). The table is generated from the groups:
`python scripts/task_flags.py` rewrites it, and a test fails while it is stale."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterable
from functools import cache
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import DATA_DIR

TABLE = DATA_DIR / "task_flags.json"
REGENERATE = "python scripts/task_flags.py"


def group_reference(group: type) -> str:
    """'module:Class', how tasks.py names a group it does not import."""
    return f"{group.__module__}:{group.__qualname__}"


def group_of(reference: str) -> type:
    """The option group a 'module:Class' reference names (imported now)."""
    module, _, name = reference.partition(":")
    group: type = getattr(importlib.import_module(module), name)
    return group


def flag_rows(group: type) -> list[dict[str, Any]]:
    """What invoke needs of each of the group's CLI options: the parameter, whether it is a
    switch (and its bool default), positional/repeatable/bare, the off flag, the help."""
    from orchestrator.options.fields import cli_specs, help_text

    return [{"parameter": spec.parameter, "switch": spec.is_bool,
             "default": spec.default if isinstance(spec.default, bool) else None,
             "positional": spec.info.positional, "repeatable": spec.info.repeatable,
             "bare": spec.info.bare, "off": list(spec.info.off) if spec.info.off else None,
             "help": help_text(spec)} for spec in cli_specs(group)]


def table_of(references: Iterable[str]) -> dict[str, list[dict[str, Any]]]:
    """The table for the groups `references` name (sorted by reference)."""
    return {reference: flag_rows(group_of(reference)) for reference in sorted(references)}


@cache
def _table() -> dict[str, list[dict[str, Any]]]:
    table: dict[str, list[dict[str, Any]]] = json.loads(TABLE.read_text())
    return table


def kept_rows(reference: str) -> list[dict[str, Any]]:
    """The table's rows for the group `reference` names."""
    rows = _table().get(reference)
    if rows is None:
        raise OrchestratorError(f"{TABLE.name} has no flags for {reference} (it is stale)",
                                REGENERATE)
    return rows


def render(table: dict[str, list[dict[str, Any]]]) -> str:
    """The table file's text."""
    return json.dumps(table, indent=1, sort_keys=True) + "\n"
