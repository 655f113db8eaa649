"""Choosing cells: --filter globs, --shard i/N (deterministic, balanced), --rerun-failed."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from dataclasses import dataclass

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.plan.cells import Cell

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str | None) -> Shard | None:
    """'2/4' -> Shard(2, 4); None -> None; anything else is a one-line error."""
    if not text:
        return None
    match = _SHARD.match(text)
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise OrchestratorError(f"--shard {text!r} is not i/N with 1 <= i <= N",
                                "invoke regress --shard 1/4 ...")
    return Shard(int(match.group(1)), int(match.group(2)))


def filter_cells(cells: Iterable[Cell], patterns: list[str]) -> list[Cell]:
    """Cells whose model, target, lane or key matches any glob (all cells when none given)."""
    cells = list(cells)
    if not patterns:
        return cells
    return [cell for cell in cells if any(_matches(cell, pattern) for pattern in patterns)]


def _matches(cell: Cell, pattern: str) -> bool:
    """True when `pattern` matches one of the cell's names."""
    names = (cell.model, cell.target, cell.lane, cell.key, cell.options_name)
    return any(fnmatch.fnmatchcase(name, pattern) for name in names)


def shard_cells(cells: Iterable[Cell], shard: Shard | None) -> list[Cell]:
    """This shard's cells: heaviest first onto the lightest shard (ties: key order, lowest id)."""
    cells = sorted(cells, key=lambda cell: cell.key)
    if shard is None:
        return cells
    return assign_shards(cells, shard.count)[shard.index - 1]


def assign_shards(cells: list[Cell], count: int) -> list[list[Cell]]:
    """Split cells into `count` lists of near-equal total weight, the same on every machine."""
    bins: list[list[Cell]] = [[] for _ in range(count)]
    loads = [0] * count
    for cell in sorted(cells, key=lambda cell: (-cell.weight, cell.key)):
        lightest = min(range(count), key=lambda index: (loads[index], index))
        bins[lightest].append(cell)
        loads[lightest] += cell.weight
    return [sorted(group, key=lambda cell: cell.key) for group in bins]


def only_keys(cells: Iterable[Cell], keys: set[str]) -> list[Cell]:
    """Cells whose key is in `keys` (for --rerun-failed)."""
    return [cell for cell in cells if cell.key in keys]
