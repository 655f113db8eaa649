"""`invoke regress --matrix M --toolsets A,B`: the matrix's compile and host lanes under two
toolsets, and one comparison per cell (delegation, Vela's estimates, exactness against each
toolset's own TOSA reference, bit-for-bit agreement, the first differing TOSA operator).
Lanes that need the runtime (QEMU, FVP) run under a toolset only where its runtime sources
match its tag; otherwise the cell says so in one line."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.regress.plan.cell_options import compile_choices
from orchestrator.regress.plan.cells import Cell, Mode
from orchestrator.toolsets.catalogue import Toolset
from orchestrator.toolsets.compile import ToolsetCompile, ToolsetJob, compile_jobs
from orchestrator.toolsets.difference import (
    delegation_changes,
    first_tosa_difference,
    outputs_agree,
    vela_estimates,
)

AB_SCHEMA = 1


@dataclass(frozen=True)
class Group:
    """The cells of one (model, option set): compiled in one worker call per toolset."""

    model_spec: str
    options_name: str
    cells: tuple[Cell, ...]

    @property
    def targets(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(cell.target for cell in self.cells))


def compile_cells(cells: list[Cell]) -> list[Cell]:
    """The cells with an NPU compile: one per (model, target, option set)."""
    from orchestrator.targets import load_catalogue

    catalogue = load_catalogue()
    seen: dict[str, Cell] = {}
    for cell in cells:
        if cell.compiles and catalogue.target(cell.target).npu is not None:
            seen.setdefault(cell.key, cell)
    return list(seen.values())


def groups_of(cells: list[Cell]) -> list[Group]:
    grouped: dict[tuple[str, str], list[Cell]] = {}
    for cell in cells:
        grouped.setdefault((cell.model_spec, cell.options_name), []).append(cell)
    return [Group(spec, name, tuple(members)) for (spec, name), members in grouped.items()]


def _verified(compiled: ToolsetCompile, cell: Cell) -> dict[str, Any]:
    """The product on the NPU model against its own TOSA reference."""
    from orchestrator.npu_model.execute import Npu
    from orchestrator.npu_model.verify import verify_product
    from orchestrator.regress.lanes.verify import verdict

    if compiled.product is None:
        return {"exact": None, "verdict": "not compiled"}
    try:
        document = verify_product(compiled.product, Npu.for_target_name(cell.target),
                                  cell.model, cell.target).to_json()
    except OrchestratorError as error:
        return {"exact": None, "verdict": f"stops: {error.message}"}
    return {"exact": bool(document["exact"]), "verdict": verdict(document)}


def _side(compiled: ToolsetCompile, cell: Cell) -> dict[str, Any]:
    product = compiled.product
    return {"toolset": compiled.toolset.name,
            "compiled": product is not None,
            "error": compiled.error.message if compiled.error else None,
            "product": str(product.directory) if product else None,
            "versions": product.manifest.get("versions") if product else None,
            "delegation": product.manifest.get("delegation") if product else None,
            "vela": product.manifest.get("vela") if product else None,
            **_verified(compiled, cell)}


def compare_cell(cell: Cell, a: ToolsetCompile, b: ToolsetCompile) -> dict[str, Any]:
    """One cell's comparison."""
    entry: dict[str, Any] = {"key": cell.key, "model": cell.model, "target": cell.target,
                             "options": cell.options_name, "a": _side(a, cell),
                             "b": _side(b, cell)}
    if a.product is None or b.product is None:
        entry["summary"] = "not compared: " + "; ".join(
            f"{side.toolset.name} did not compile" for side in (a, b) if side.product is None)
        return entry
    entry["delegation_changes"] = delegation_changes(a.product, b.product)
    entry["vela_estimates"] = vela_estimates(a.product, b.product)
    entry["outputs"] = outputs_agree(a.product, b.product)
    entry["first_difference"] = (first_tosa_difference(a.product, b.product)
                                 if entry["outputs"]["agree"] is not True else None)
    entry["summary"] = summarize(entry)
    return entry


def summarize(entry: dict[str, Any]) -> str:
    """'same outputs; cycles x0.86; 2 operators moved' in one line."""
    parts = ["outputs agree bit for bit" if entry["outputs"]["agree"] else
             "outputs differ" if entry["outputs"]["agree"] is False else
             f"outputs not compared ({entry['outputs']['why']})"]
    cycles = entry["vela_estimates"].get("total_cycles", {})
    if cycles.get("ratio") is not None:
        parts.append(f"Vela cycles {cycles['a']} -> {cycles['b']} (x{cycles['ratio']})")
    if entry["delegation_changes"]:
        parts.append(f"{len(entry['delegation_changes'])} operator(s) moved between NPU "
                     "and CPU")
    for side in ("a", "b"):
        if entry[side]["exact"] is False:
            parts.append(f"{entry[side]['toolset']} departs from its TOSA reference")
    return "; ".join(parts)


def _compile_groups(toolset: Toolset, groups: list[Group], where: Scratch
                    ) -> dict[str, ToolsetCompile]:
    """Every group's targets under `toolset` in one process (one worker for another
    toolset's environment); keyed as `_slot` says."""
    jobs = [ToolsetJob(group.model_spec, group.targets,
                       compile_choices(dict(group.cells[0].options),
                                       f"option set {group.options_name}"))
            for group in groups]
    try:
        done = compile_jobs(toolset, jobs, where)
    except OrchestratorError as error:
        return {_slot(group.model_spec, group.options_name, target):
                ToolsetCompile(toolset, target, error=error)
                for group in groups for target in group.targets}
    return {_slot(group.model_spec, group.options_name, entry.target): entry
            for group, compiled in zip(groups, done, strict=True) for entry in compiled}


def _slot(model_spec: str, options_name: str, target: str) -> str:
    return f"{model_spec}|{options_name}|{target}"


def runtime_source_tag(tree: Scratch) -> str | None:
    """The tag of the ExecuTorch runtime sources set up here ('v1.4.1'), from version.txt."""
    from orchestrator.setup.lock import read_lock

    entry = read_lock(tree).get("executorch")
    version = Path(entry["path"]) / "version.txt" if entry else None
    if version is None or not version.is_file():
        return None
    return f"v{version.read_text().strip()}"


def runtime_lane_note(cell: Cell, toolset: Toolset, source_tag: str | None) -> str | None:
    """Why a model cell on a simulator (QEMU/FVP: the ExecuTorch runtime) does not run under
    `toolset`, or None when it may (firmware apps do not use ExecuTorch)."""
    if cell.mode is not Mode.RUN or source_tag == toolset.runtime_tag:
        return None
    return (f"not run under {toolset.name}: its runtime needs ExecuTorch sources "
            f"at {toolset.runtime_tag}, set up at {source_tag or 'none'} (invoke setup --only "
            f"sources --source executorch=DIR at {toolset.runtime_tag})")


def run_ab(cells: list[Cell], toolsets: tuple[Toolset, Toolset], where: Scratch,
           source_tag: str | None,
           progress: Callable[[str], None] = lambda _line: None) -> dict[str, Any]:
    """Compile every NPU cell under both toolsets, verify, compare; the report document."""
    started = time.perf_counter()
    compiling = compile_cells(cells)
    groups = groups_of(compiling)
    compiled = {}
    for toolset in toolsets:
        progress(f"{toolset.name}: compile {len(compiling)} cell(s) of {len(groups)} "
                 "model(s) in one process")
        compiled[toolset.name] = _compile_groups(toolset, groups, where)
    entries = []
    for cell in compiling:
        slot = _slot(cell.model_spec, cell.options_name, cell.target)
        entries.append(compare_cell(cell, compiled[toolsets[0].name][slot],
                                    compiled[toolsets[1].name][slot]))
        progress(f"{cell.key}: {entries[-1]['summary']}")
    notes = [f"{cell.key} {note}" for cell in cells for toolset in toolsets
             if (note := runtime_lane_note(cell, toolset, source_tag)) is not None]
    return {"schema": AB_SCHEMA, "toolsets": [toolset.to_json() for toolset in toolsets],
            "cells": entries, "runtime_lanes": notes,
            "seconds": round(time.perf_counter() - started, 1)}
