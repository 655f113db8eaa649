"""Products and cell outputs as bytes, for workers that do not see the client's scratch.

A product (a stage's outcome object) names its files by path under the scratch it was made
in. `pack` gathers them (a referenced directory whole, except a build tree, of which only
the referenced files travel) into one gzip'd tar relative to that scratch; `unpack` puts them
under another scratch (files already there are kept: products are content-keyed) and
`relocate` rewrites every path and path string from one root to the other.
"""

from __future__ import annotations

import dataclasses
import io
import os
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

BUILD_TREE_MARK = "CMakeCache.txt"


def paths_in(value: Any) -> Iterator[Path]:
    """Every Path inside a value (dataclasses, sequences and dicts walked)."""
    if isinstance(value, Path):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for item in dataclasses.fields(value):
            yield from paths_in(getattr(value, item.name))
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from paths_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from paths_in(item)


def _files_of(path: Path) -> Iterator[Path]:
    """A file, or a directory's files (a build tree contributes none: too big, not needed)."""
    if path.is_file():
        yield path
    elif path.is_dir() and not (path / BUILD_TREE_MARK).exists():
        yield from (item for item in sorted(path.rglob("*")) if item.is_file())


def pack(value: Any, root: Path) -> bytes:
    """The files `value` references under `root`, as a gzip'd tar relative to root."""
    buffer = io.BytesIO()
    root = root.resolve()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        seen: set[Path] = set()
        for path in paths_in(value):
            for item in _files_of(path):
                resolved = item.resolve()
                if resolved in seen or not resolved.is_relative_to(root):
                    continue
                seen.add(resolved)
                archive.add(resolved, arcname=str(resolved.relative_to(root)))
    return buffer.getvalue()


def pack_folder(folder: Path) -> bytes:
    """Every file of one folder (a cell's outputs), relative to it."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for item in sorted(folder.rglob("*")):
            if item.is_file():
                archive.add(item, arcname=str(item.relative_to(folder)))
    return buffer.getvalue()


def unpack(data: bytes, root: Path, replace: bool = False) -> None:
    """Put the archive's files under root: each by an atomic rename; an existing file is kept
    unless `replace` (products are content-keyed; cell outputs are not)."""
    root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=root, prefix=".unpack-") as staging:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            archive.extractall(staging, filter="data")
        for item in sorted(Path(staging).rglob("*")):
            if not item.is_file():
                continue
            destination = root / item.relative_to(staging)
            if destination.exists() and not replace:
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            os.replace(item, destination)


def relocate(value: Any, old: Path, new: Path) -> Any:
    """`value` with every path (and path string) under `old` moved under `new`."""
    if old == new:
        return value
    if isinstance(value, Path):
        return new / value.relative_to(old) if value.is_relative_to(old) else value
    if isinstance(value, str):
        prefix = f"{old}{os.sep}"
        return f"{new}{os.sep}{value[len(prefix):]}" if value.startswith(prefix) else value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {item.name: relocate(getattr(value, item.name), old, new)
                   for item in dataclasses.fields(value) if item.init}
        return dataclasses.replace(value, **changes)
    if isinstance(value, (list, tuple)):
        return type(value)(relocate(item, old, new) for item in value)
    if isinstance(value, dict):
        return {key: relocate(item, old, new) for key, item in value.items()}
    return value
