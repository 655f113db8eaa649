"""`invoke targets`: the catalogue as a table or as JSON."""

from __future__ import annotations

from orchestrator.foundation.cli import console, print_json
from orchestrator.options.inspect import TargetsListing
from orchestrator.targets.catalogue import load_catalogue
from orchestrator.targets.listing import cpu_label, model_lanes, target_summary


def targets_command(listing: TargetsListing | None = None, json: bool = False) -> int:
    """Print every target in the catalogue (`listing`: the task's options, none yet)."""
    summaries = [target_summary(target) for target in load_catalogue()]
    if json:
        print_json(summaries)
        return 0
    from rich.table import Table

    table = Table(title="Targets")
    for column in ("target", "cpu", "npu", "MACs", "platform", "simulators",
                   "system config", "memory mode"):
        table.add_column(column)
    for item in summaries:
        table.add_row(item["name"], cpu_label(item), item["npu"] or "-", str(item["macs"] or "-"),
                      item["platform"], ", ".join(item["simulators"] + model_lanes(item)),
                      item["system_config"] or "-", item["memory_mode"] or "-")
    console().print(table)
    return 0
