"""A lowering on disk, scratch/models/lowered/<lowering key>/ (no torch).

A compile is two steps with two keys. The lowering (export, quantization, partitioning, the
TOSA graphs, the CPU part of the program and the exact references) is keyed by everything
but the options that only reach Vela (CompileRequest.lowering_key); one configuration of it
(Vela on each kept partition, then the .pte assembled) is keyed by all of them
(CompileRequest.key), as products always were. The lowering keeps what every configuration
shares: the partitions' TOSA graphs, the input and reference tensors, the exact run's
intermediates, the delegation report, the ETRecord, the program emitted for the
configuration that lowered it (the template the others are assembled from) and that
product's manifest. A configuration's product links these files (hard links, else copies)
so it stays a complete product directory on its own.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.aot import products as layout
from orchestrator.aot.lower.etrecord import ETRECORD
from orchestrator.foundation.cache_check import record_files

LOWERED_DIR = "lowered"
TEMPLATE_MANIFEST = "template_manifest.json"   # the lowering configuration's product manifest
LOWERING_MANIFEST = "lowering.json"            # written last: the lowering is complete
LOWERING_SCHEMA = 1


def shared_names() -> tuple[str, ...]:
    """What every configuration of a lowering shares, by name in the product directory (the
    partitions' folder name read here: a warm run, which shares nothing, never loads their
    reader)."""
    from orchestrator.tosa.partitions import PARTITIONS_DIR

    return (layout.INPUTS, layout.REFERENCE_FLOAT, layout.REFERENCE_QUANTIZED,
            layout.REFERENCE_EXACT, layout.EXACT_INTERMEDIATES, layout.DELEGATION_REPORT,
            layout.TOSA_DIR, PARTITIONS_DIR, ETRECORD)


@dataclass(frozen=True)
class Lowering:
    """A finished lowering: its directory and manifest."""

    directory: Path
    manifest: dict[str, Any]

    @property
    def key(self) -> str:
        return self.directory.name

    @property
    def template_pte(self) -> Path:
        """The program emitted for the configuration the lowering was made with."""
        return self.directory / layout.PTE

    @property
    def template_manifest(self) -> dict[str, Any]:
        document: dict[str, Any] = json.loads((self.directory / TEMPLATE_MANIFEST).read_text())
        return document

    @property
    def delegate_partitions(self) -> list[tuple[int, int, int]]:
        """(execution plan, delegate, partition) of every Ethos-U delegate of the template."""
        return [(int(a), int(b), int(c)) for a, b, c in self.manifest["delegate_partitions"]]


def lowered_root(models: Path) -> Path:
    return models / LOWERED_DIR


def load_lowering(directory: Path) -> Lowering | None:
    """The lowering in `directory` if it is complete (its manifest is written last)."""
    try:
        manifest = json.loads((directory / LOWERING_MANIFEST).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if manifest.get("schema") != LOWERING_SCHEMA:
        return None
    return Lowering(directory, manifest)


def link_tree(source: Path, destination: Path) -> None:
    """`source` (a file or a folder) at `destination` as hard links, copies where the
    filesystem refuses links."""
    if source.is_dir():
        destination.mkdir(parents=True, exist_ok=True)
        for entry in source.iterdir():
            link_tree(entry, destination / entry.name)
        return
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def share(source: Path, destination: Path) -> None:
    """The shared files of product or lowering `source` into directory `destination`."""
    for name in shared_names():
        if (source / name).exists():
            link_tree(source / name, destination / name)


def lowering_manifest(key: str, template: dict[str, Any],
                      delegate_partitions: list[tuple[int, int, int]],
                      identity: dict[str, Any]) -> dict[str, Any]:
    """The lowering's own manifest: its key and identity, the configuration it was lowered
    with, where each template delegate's partition is, and how long lowering took."""
    return {"schema": LOWERING_SCHEMA, "key": key, "identity": identity,
            "model": template["model"], "lowered_for": template["target"],
            "delegate_partitions": [list(entry) for entry in delegate_partitions],
            "seconds": template["compile_seconds"]}


def publish_lowering(product: Path, template_manifest: dict[str, Any],
                     manifest: dict[str, Any], final: Path) -> None:
    """Store the lowering of a freshly compiled `product` at `final` (staged, then renamed;
    another process's lowering of the same key is kept when it won)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    staging = layout.staging_directory(final.parent, final.name)
    try:
        share(product, staging)
        link_tree(product / layout.PTE, staging / layout.PTE)
        layout.write_json(staging / TEMPLATE_MANIFEST, template_manifest)
        layout.write_json(staging / LOWERING_MANIFEST, manifest)
        record_files(staging)
        try:
            os.rename(staging, final)
        except OSError:
            if load_lowering(final) is None:
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
