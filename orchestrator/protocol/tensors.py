"""Tensors as the protocol carries them: dtype, shape and exact little-endian bytes."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from math import prod
from typing import Any

# dtype -> (bytes per element, struct format or None when decoded by hand, numpy name)
DTYPES: dict[str, tuple[int, str | None, str]] = {
    "int8": (1, "b", "int8"),
    "uint8": (1, "B", "uint8"),
    "int16": (2, "h", "int16"),
    "uint16": (2, "H", "uint16"),
    "int32": (4, "i", "int32"),
    "uint32": (4, "I", "uint32"),
    "int64": (8, "q", "int64"),
    "uint64": (8, "Q", "uint64"),
    "float16": (2, "e", "float16"),
    "bfloat16": (2, None, "uint16"),
    "float32": (4, "f", "float32"),
    "float64": (8, "d", "float64"),
    "bool": (1, "?", "bool"),
}


@dataclass(frozen=True)
class Tensor:
    """One reported tensor; `data` holds exactly the bytes the firmware had."""

    index: int
    dtype: str
    shape: tuple[int, ...]
    data: bytes

    @property
    def count(self) -> int:
        return prod(self.shape)

    def values(self) -> list[Any]:
        """Elements as Python numbers (bfloat16 widened exactly to float), flat order."""
        size, fmt, _ = DTYPES[self.dtype]
        count = len(self.data) // size
        if fmt is None:
            halves = struct.unpack(f"<{count}H", self.data)
            return [struct.unpack("<f", struct.pack("<I", half << 16))[0] for half in halves]
        return list(struct.unpack(f"<{count}{fmt}", self.data))

    def to_numpy(self) -> Any:
        """A numpy array with dtype and shape (bfloat16 as its raw uint16 bit patterns)."""
        import numpy

        _, _, name = DTYPES[self.dtype]
        return numpy.frombuffer(self.data, dtype=numpy.dtype(name).newbyteorder("<")).reshape(
            self.shape)


def expected_size(dtype: str, shape: tuple[int, ...]) -> int:
    """Bytes a tensor of this dtype and shape must have (KeyError for unknown dtypes)."""
    return DTYPES[dtype][0] * prod(shape)
