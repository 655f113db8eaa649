"""Every intermediate tensor of a TOSA graph from the reference model: the graph's main block
given more outputs (each non-CONST operator's result), then run as usual (no torch).

The flatbuffer is extended, not rebuilt: a new outputs vector and its strings are appended at
the end (flatbuffer offsets point forward, so the block's outputs field can point there) and
the field is repointed; everything else stays byte for byte as Vela received it.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from orchestrator.tosa.graph import CONSTANTS, _main_block, graph_interface, main_operators
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

OUTPUTS_FIELD = 12          # TosaBasicBlock's vtable slot for `outputs` (tosa/TosaBasicBlock.py)


def _pad(data: bytearray) -> None:
    data.extend(b"\0" * (-len(data) % 4))


def with_outputs(tosa: bytes, names: Sequence[str]) -> bytes:
    """`tosa` whose main block outputs `names` (in that order) instead of its own."""
    block = _main_block(tosa)
    table = block._tab
    field = table.Offset(OUTPUTS_FIELD)
    if field == 0:
        raise ValueError("the TOSA block has no outputs field")
    data = bytearray(tosa)
    _pad(data)
    vector = len(data)
    data += struct.pack("<I", len(names)) + b"\0" * (4 * len(names))
    for index, name in enumerate(names):
        _pad(data)
        slot = vector + 4 + 4 * index
        struct.pack_into("<I", data, slot, len(data) - slot)
        encoded = name.encode()
        data += struct.pack("<I", len(encoded)) + encoded + b"\0"
    _pad(data)
    position = table.Pos + field
    struct.pack_into("<I", data, position, vector - position)
    return bytes(data)


def intermediate_names(tosa: bytes) -> list[str]:
    """Every tensor an operator of the main block computes (not constants), in graph order."""
    return [name for op in main_operators(tosa) if op.op not in CONSTANTS
            for name in op.outputs]


def run_with_intermediates(tosa: bytes, inputs: Sequence[np.ndarray[Any, Any]]
                           ) -> dict[str, np.ndarray[Any, Any]]:
    """Each computed tensor of the graph by name, for `inputs` (the graph's inputs included)."""
    names = intermediate_names(tosa)
    arrays = run_tosa_flatbuffer(with_outputs(tosa, names), inputs)
    found = dict(zip(names, arrays, strict=True))
    for tensor, array in zip(graph_interface(tosa).inputs, inputs, strict=True):
        found.setdefault(tensor.name, np.asarray(array))
    return found
