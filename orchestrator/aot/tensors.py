"""Tensors on disk for the device: raw little-endian bytes plus a JSON sidecar (no torch)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SIDECAR_SUFFIX = ".json"
DATA_SUFFIX = ".bin"


@dataclass(frozen=True)
class TensorFile:
    """One stored tensor: where its bytes are and how to read them."""

    path: Path
    dtype: str                 # numpy dtype name, e.g. "float32", "int8"
    shape: tuple[int, ...]     # logical shape (as torch reports it)
    dim_order: tuple[int, ...]  # memory order of the bytes (0..n-1 = contiguous)
    nbytes: int
    name: str = ""             # the leaf's path in the model's inputs/outputs (`inputs[1][0]`)

    def to_json(self) -> dict[str, Any]:
        return {"file": self.path.name, "name": self.name, "dtype": self.dtype,
                "shape": list(self.shape), "dim_order": list(self.dim_order),
                "nbytes": self.nbytes, "byteorder": "little"}

    def label(self, side: str, index: int) -> str:
        """How results and errors name this tensor: its path, else `side index`."""
        return self.name or f"{side} {index}"


def stored_bytes(array: Any, dim_order: tuple[int, ...]) -> bytes:
    """A numpy array's raw little-endian bytes in `dim_order` (what the device reads)."""
    import numpy as np

    stored = np.ascontiguousarray(np.transpose(array, dim_order) if array.ndim else array)
    return bytes(stored.astype(stored.dtype.newbyteorder("<"), copy=False).tobytes())


def write_tensor(directory: Path, index: int, array: Any,
                 dim_order: tuple[int, ...] | None = None, name: str = "") -> TensorFile:
    """Write a numpy array as `<index>.bin` (+ `<index>.json`), bytes in `dim_order`,
    named by its path in the model's inputs or outputs."""
    import numpy as np

    array = np.asarray(array)
    order = tuple(dim_order) if dim_order is not None else tuple(range(array.ndim))
    data = stored_bytes(array, order)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{index}{DATA_SUFFIX}"
    path.write_bytes(data)
    record = TensorFile(path=path, dtype=array.dtype.name, shape=tuple(array.shape),
                        dim_order=order, nbytes=len(data), name=name)
    path.with_suffix(SIDECAR_SUFFIX).write_text(json.dumps(record.to_json(), indent=2) + "\n")
    return record


def read_tensor_file(sidecar: Path) -> TensorFile:
    """The record of one stored tensor, from its JSON sidecar."""
    data = json.loads(sidecar.read_text())
    return TensorFile(path=sidecar.with_name(data["file"]), dtype=data["dtype"],
                      shape=tuple(data["shape"]), dim_order=tuple(data["dim_order"]),
                      nbytes=data["nbytes"], name=data.get("name", ""))


def read_tensor_dir(directory: Path) -> list[TensorFile]:
    """Every stored tensor in `directory`, in index order."""
    sidecars = sorted(directory.glob(f"*{SIDECAR_SUFFIX}"), key=lambda p: int(p.stem))
    return [read_tensor_file(sidecar) for sidecar in sidecars]


def load_array(record: TensorFile) -> Any:
    """The stored tensor as a (writable) numpy array in its logical shape."""
    import numpy as np

    stored_shape = tuple(record.shape[axis] for axis in record.dim_order)
    raw = np.frombuffer(record.path.read_bytes(), dtype=np.dtype(record.dtype).newbyteorder("<"))
    stored = raw.reshape(stored_shape)
    inverse = tuple(int(axis) for axis in np.argsort(record.dim_order))
    return np.array(np.transpose(stored, inverse) if stored.ndim else stored)
