"""Which TOSA tensor an Ethos-U85 transposed store holds, for localisation.

Vela stores an OFM transposed both for a TOSA TRANSPOSE (its output, a graph tensor) and for
transposes of its own (of a MatMul's operands, of an NCHW input), which store tensors no graph
tensor holds though they share graph tensors' shapes. Its per-operation table says which: a
row whose operator is a Transpose, its original operator Transpose for the graph's own
(consecutive rows of one name are one operation: a MemoryCopy with the Transpose fused in).
When the stream has as many transposed stores as the table has transposes, the k-th store is
the k-th of them; otherwise (or without the table) a store is known only by its values.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from orchestrator.npu_model.observe import ObservedOp
from orchestrator.tosa.graph import main_operators

TOSA_TRANSPOSE = "TRANSPOSE"
VELA_TRANSPOSE = "Transpose"   # Vela's operator name, in its table's rows
COPY_SUFFIX = "_copy"          # Vela's name for a MemoryCopy of a tensor


@dataclass(frozen=True)
class VelaTranspose:
    """One transposed store Vela's table lists: its name, and whether it is a TOSA TRANSPOSE."""

    name: str
    from_graph: bool


@dataclass(frozen=True)
class StoredAs:
    """What one operation's OFM may be compared with: `tensors` (None: any graph tensor), and
    whether differing values name it as departing (not when only its values identify it)."""

    tensors: frozenset[str] | None
    may_depart: bool


ANY_TENSOR = StoredAs(None, may_depart=True)
NOTHING = StoredAs(frozenset(), may_depart=False)


def vela_transposes(rows: Sequence[Mapping[str, Any]]) -> list[VelaTranspose]:
    """The transposes of Vela's per-operation table, one per operation, in stream order."""
    found: list[VelaTranspose] = []
    for name, group in itertools.groupby(rows, key=lambda row: str(row.get("name"))):
        operation = list(group)
        if any(row.get("nng_operator") == VELA_TRANSPOSE for row in operation):
            found.append(VelaTranspose(name.removesuffix(COPY_SUFFIX), any(
                row.get("original_operator") == VELA_TRANSPOSE for row in operation)))
    return found


def transpose_outputs(tosa: bytes) -> frozenset[str]:
    """The tensors TOSA TRANSPOSE operators write."""
    return frozenset(name for op in main_operators(tosa) if op.op == TOSA_TRANSPOSE
                     for name in op.outputs)


def _known(transpose: VelaTranspose, outputs: frozenset[str]) -> StoredAs:
    if not transpose.from_graph:
        return NOTHING
    if transpose.name in outputs:
        return StoredAs(frozenset({transpose.name}), may_depart=True)
    return StoredAs(outputs, may_depart=False)   # a TRANSPOSE Vela renamed: by its values


def stored_as(operations: Sequence[ObservedOp], transposes: Sequence[VelaTranspose],
              tosa: bytes) -> dict[int, StoredAs]:
    """Per operation index, what its OFM may be compared with (any graph tensor unless it was
    stored transposed)."""
    outputs = transpose_outputs(tosa)
    stores = [op.index for op in operations if op.index >= 0 and op.transposed]
    found = {op.index: ANY_TENSOR for op in operations if op.index >= 0 and not op.transposed}
    if len(transposes) != len(stores):
        return found | {index: StoredAs(outputs, may_depart=False) for index in stores}
    return found | {index: _known(transpose, outputs)
                    for index, transpose in zip(stores, transposes, strict=True)}
