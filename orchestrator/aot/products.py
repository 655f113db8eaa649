"""The product directory scratch/models/<key>/: layout, manifest, atomic publish (no torch)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.tensors import TensorFile, read_tensor_dir
from orchestrator.exact.record import ExactRecord
from orchestrator.foundation.cache_check import record_files
from orchestrator.results import Versions

if TYPE_CHECKING:
    from orchestrator.tosa.partitions import Partition

MANIFEST = "manifest.json"
PTE = "model.pte"
INPUTS = "inputs"
REFERENCE_FLOAT = "reference_float"
REFERENCE_QUANTIZED = "reference_quantized"
REFERENCE_EXACT = "reference_exact"
VELA_REPORT = "vela_report.json"
EXACT_INTERMEDIATES = "reference_exact_intermediates.npz"   # orchestrator/exact/intermediates
DELEGATION_REPORT = "delegation_report.json"
TOSA_DIR = "tosa"
MANIFEST_SCHEMA = 2


@dataclass(frozen=True)
class Product:
    """A compiled model on disk; every path the later stages need."""

    directory: Path
    manifest: dict[str, Any]
    cached: bool = False

    @property
    def key(self) -> str:
        return self.directory.name

    @property
    def pte(self) -> Path:
        return self.directory / PTE

    @property
    def versions(self) -> Versions:
        """The tool versions that made this product (executorch, Vela; torch, tosa-tools and
        the rest under extra, by package name)."""
        found = {str(k): str(v) for k, v in (self.manifest.get("versions") or {}).items()}
        return Versions(executorch=found.pop("executorch", None),
                        vela=found.pop("ethos-u-vela", None), extra=found)

    @property
    def inputs(self) -> list[TensorFile]:
        return read_tensor_dir(self.directory / INPUTS)

    @property
    def reference_float(self) -> list[TensorFile]:
        return read_tensor_dir(self.directory / REFERENCE_FLOAT)

    @property
    def reference_quantized(self) -> list[TensorFile]:
        """Outputs of the quantized model on the host (empty for a float compile)."""
        folder = self.directory / REFERENCE_QUANTIZED
        return read_tensor_dir(folder) if folder.is_dir() else []

    @property
    def reference_exact(self) -> list[TensorFile]:
        """The lowered program's own outputs computed exactly on the host (empty: none)."""
        folder = self.directory / REFERENCE_EXACT
        return read_tensor_dir(folder) if folder.is_dir() else []

    @property
    def exact_record(self) -> ExactRecord:
        """How the exact reference was computed, or why the product falls back."""
        return ExactRecord.from_manifest(self.manifest)

    @property
    def reference_kind(self) -> str:
        """'exact', 'quantized' or 'float': what the device output is judged against."""
        if self.reference_exact:
            return "exact"
        return "quantized" if self.reference_quantized else "float"

    @property
    def reference(self) -> list[TensorFile]:
        """What the device output is judged against: exact, else quantized, else float."""
        return self.reference_exact or self.reference_quantized or self.reference_float

    @property
    def vela_report(self) -> Path | None:
        path = self.directory / VELA_REPORT
        return path if path.is_file() else None

    @property
    def etrecord(self) -> Path | None:
        """The ETRecord the devtools Inspector reads an ETDump with (None: not kept)."""
        name = self.manifest.get("etrecord")
        path = self.directory / name if name else None
        return path if path is not None and path.is_file() else None

    @property
    def exact_intermediates(self) -> Path | None:
        """Every op's output of the exact reference run (None: no exact reference)."""
        path = self.directory / EXACT_INTERMEDIATES
        return path if path.is_file() else None

    @property
    def delegation_report(self) -> Path:
        return self.directory / DELEGATION_REPORT

    @property
    def tosa_files(self) -> list[Path]:
        return sorted((self.directory / TOSA_DIR).glob("*.tosa"))

    @property
    def partitions(self) -> list[Partition]:
        """The delegated NPU partitions with their TOSA flatbuffers (empty: CPU only); their
        reader is imported here: a warm run reads none."""
        from orchestrator.tosa.partitions import partitions_from_manifest

        return partitions_from_manifest(self.manifest, self.directory)

    def paths(self) -> dict[str, Any]:
        """Product paths as strings, for summaries and JSON."""
        paths: dict[str, Any] = {
            "directory": str(self.directory), "pte": str(self.pte),
            "manifest": str(self.directory / MANIFEST),
            "inputs": [str(t.path) for t in self.inputs],
            "reference_float": [str(t.path) for t in self.reference_float],
            "reference_quantized": [str(t.path) for t in self.reference_quantized],
            "reference_exact": [str(t.path) for t in self.reference_exact],
            "delegation_report": str(self.delegation_report),
        }
        if self.vela_report:
            paths["vela_report"] = str(self.vela_report)
        if self.etrecord:
            paths["etrecord"] = str(self.etrecord)
        if self.tosa_files:
            paths["tosa"] = [str(p) for p in self.tosa_files]
        return paths


def write_json(path: Path, document: Any) -> None:
    """Write `document` as indented JSON."""
    path.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n")


def load_product(directory: Path) -> Product | None:
    """The product in `directory` if it is complete (has a manifest of this schema)."""
    manifest_path = directory / MANIFEST
    if not manifest_path.is_file():
        return None
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if manifest.get("schema") != MANIFEST_SCHEMA:
        return None
    return Product(directory=directory, manifest=manifest, cached=True)


def staging_directory(models: Path, key: str) -> Path:
    """A fresh private directory next to the final one (same filesystem, so rename is atomic)."""
    models.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f".{key}.", dir=models))


def publish(staging: Path, final: Path) -> Path:
    """Record its files' digests, then move a finished staging directory to `final`; if
    another process won, keep theirs."""
    record_files(staging)
    try:
        os.rename(staging, final)
    except OSError:
        if load_product(final) is None:
            raise
        shutil.rmtree(staging, ignore_errors=True)
    return final


def discard(staging: Path) -> None:
    """Remove a staging directory after a failed compile."""
    shutil.rmtree(staging, ignore_errors=True)
