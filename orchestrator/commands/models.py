"""`invoke models`: every model `--model NAME` accepts, as a table or as JSON."""

from __future__ import annotations

from typing import Any

from orchestrator.aot.models.catalogue import (
    NOT_RECORDED,
    NPU_FAMILIES,
    listing_document,
    load_model_catalogue,
)
from orchestrator.foundation.cli import console, print_json
from orchestrator.options.inspect import ModelsListing


def _packages(model: dict[str, Any]) -> str:
    if model["packages"] is None:
        return NOT_RECORDED
    return ", ".join(f"{p['name']} [{p['extra']}]" if p["extra"] else p["name"]
                     for p in model["packages"]) or "-"


def _weights(model: dict[str, Any]) -> str:
    if model["fetches_outside_tool"]:
        return "fetched by its loader (refused)"
    if model["weights"]:
        return f"pretrained: invoke setup --models {model['select']}"
    return "no" if model["packages"] is not None else NOT_RECORDED


def models_command(listing: ModelsListing | None = None, json: bool = False) -> int:
    """Print every model: where it comes from, packages, weights, known per NPU family."""
    document = listing_document(load_model_catalogue())
    if json:
        print_json(document)
        return 0
    from rich.table import Table

    table = Table(title="Models", caption=f"{document['rule']}; upstream models load with "
                  f"torch seeded ({document['seed']})")
    for column in ("--model", "source", "loads", "packages [extra]", "downloads weights",
                   *NPU_FAMILIES):
        table.add_column(column)
    for model in document["models"]:
        table.add_row(model["select"], model["source"], model["loads"], _packages(model),
                      _weights(model), *(model["known"][family] for family in NPU_FAMILIES))
    console().print(table)
    if document["upstream_problem"]:
        print(f"note: {document['upstream_problem']}")
    return 0
