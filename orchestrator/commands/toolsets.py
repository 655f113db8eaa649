"""`invoke toolsets`: every toolset (orchestrator/data/toolsets.toml), its pins, its runtime
tag and whether it is installed here."""

from __future__ import annotations

from typing import Any

from orchestrator.foundation.cli import console, print_json
from orchestrator.foundation.paths import scratch
from orchestrator.options.inspect import ToolsetsListing
from orchestrator.toolsets.catalogue import PACKAGES, toolsets
from orchestrator.toolsets.environment import installed_toolset, runs_in_process


def listing() -> list[dict[str, Any]]:
    where = scratch()
    entries = []
    for toolset in toolsets().values():
        installed = installed_toolset(toolset, where)
        state = ("this environment" if runs_in_process(toolset) else
                 str(installed.directory) if installed else
                 f"not installed: invoke setup --toolsets {toolset.name}")
        entries.append({**toolset.to_json(), "title": toolset.title, "installed": state})
    return entries


def toolsets_command(choice: ToolsetsListing | None = None, json: bool = False) -> int:
    entries = listing()
    if json:
        print_json(entries)
        return 0
    from rich.table import Table

    table = Table(title="Toolsets", caption="a toolset may also be named as requirements over "
                  "the default, e.g. --toolsets et-1.4.1,executorch==1.5.1")
    for column in ("name", *PACKAGES, "runtime", "installed"):
        table.add_column(column)
    for entry in entries:
        table.add_row(entry["name"] + (" (default)" if entry["default"] else ""),
                      *(entry["packages"][package] for package in PACKAGES),
                      entry["runtime_tag"], entry["installed"])
    console().print(table)
    return 0
