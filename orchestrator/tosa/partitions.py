"""The delegated Ethos-U partitions of a compiled product (read from disk; no torch).

Compile stores each partition's TOSA flatbuffer as partitions/<i>/partition.tosa and lists
the partitions in the product manifest under "partitions" (see capture.py), each with its
inputs and outputs as the program's delegate call sees them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError

PARTITIONS_DIR = "partitions"
TOSA_FILE = "partition.tosa"
MANIFEST_KEY = "partitions"


@dataclass(frozen=True)
class Quantization:
    """Per-tensor affine quantization: real = scale * (q - zero_point)."""

    scale: float
    zero_point: int
    quant_min: int
    quant_max: int
    dtype: str

    def to_json(self) -> dict[str, Any]:
        return {"scale": self.scale, "zero_point": self.zero_point,
                "quant_min": self.quant_min, "quant_max": self.quant_max, "dtype": self.dtype}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Quantization | None:
        if data is None:
            return None
        return cls(scale=float(data["scale"]), zero_point=int(data["zero_point"]),
                   quant_min=int(data["quant_min"]), quant_max=int(data["quant_max"]),
                   dtype=str(data["dtype"]))


@dataclass(frozen=True)
class PartitionTensor:
    """One input or output of a partition.

    `name` is the node in the lowered program (delegate argument or getitem), `tosa_name`
    the tensor in the TOSA graph; `quantization` is the (de)quantize op next to it in the
    program, or None when the neighbour is not a per-tensor (de)quantize.
    """

    name: str
    tosa_name: str
    dtype: str                    # numpy dtype name
    shape: tuple[int, ...]
    quantization: Quantization | None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "tosa_name": self.tosa_name, "dtype": self.dtype,
                "shape": list(self.shape),
                "quantization": self.quantization.to_json() if self.quantization else None}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PartitionTensor:
        return cls(name=str(data["name"]), tosa_name=str(data["tosa_name"]),
                   dtype=str(data["dtype"]), shape=tuple(int(d) for d in data["shape"]),
                   quantization=Quantization.from_json(data.get("quantization")))


@dataclass(frozen=True)
class Partition:
    """One delegated partition: its TOSA flatbuffer on disk and its interface."""

    index: int
    delegate: str                 # the executorch_call_delegate node in the lowered program
    backend: str
    tosa_path: Path
    inputs: tuple[PartitionTensor, ...]
    outputs: tuple[PartitionTensor, ...]

    @property
    def tosa(self) -> bytes:
        """The TOSA flatbuffer exactly as Vela received it."""
        try:
            return self.tosa_path.read_bytes()
        except OSError as error:
            raise OrchestratorError(
                f"partition {self.index}'s TOSA flatbuffer is unreadable ({error})",
                "recompile the model: invoke compile --model <model> --target <target>"
            ) from None

    def to_json(self, product_directory: Path) -> dict[str, Any]:
        return {"index": self.index, "delegate": self.delegate, "backend": self.backend,
                "tosa": str(self.tosa_path.relative_to(product_directory)),
                "tosa_bytes": self.tosa_path.stat().st_size,
                "inputs": [t.to_json() for t in self.inputs],
                "outputs": [t.to_json() for t in self.outputs]}

    @classmethod
    def from_json(cls, data: dict[str, Any], product_directory: Path) -> Partition:
        return cls(index=int(data["index"]), delegate=str(data["delegate"]),
                   backend=str(data["backend"]), tosa_path=product_directory / data["tosa"],
                   inputs=tuple(PartitionTensor.from_json(t) for t in data["inputs"]),
                   outputs=tuple(PartitionTensor.from_json(t) for t in data["outputs"]))


def partition_path(product_directory: Path, index: int) -> Path:
    """Where partition `index`'s TOSA flatbuffer lives in a product directory."""
    return product_directory / PARTITIONS_DIR / str(index) / TOSA_FILE


def partitions_from_manifest(manifest: dict[str, Any],
                             product_directory: Path) -> list[Partition]:
    """The partitions a product manifest lists (empty for CPU-only programs)."""
    return [Partition.from_json(entry, product_directory)
            for entry in manifest.get(MANIFEST_KEY) or []]


def product_partitions(product: Any) -> list[Partition]:
    """The delegated partitions of a compiled Product, in the program's call order."""
    return partitions_from_manifest(product.manifest, Path(product.directory))
