"""Where a partition departs: the first NPU operation whose OFM differs from the TOSA reference
model's tensor it computes.

Each operation's OFM is read from memory right after it ran (the model's operation observer);
the TOSA tensor it computes is Vela's name for the operation (its per-operation table, in
command-stream order, when it lists as many operations as the stream runs), else the next
graph tensor with as many elements. The TOSA operators behind it come from
orchestrator.tosa.graph.operators_behind, as in the profile's Vela rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.tosa.graph import operators_behind
from orchestrator.tosa.intermediates import run_with_intermediates
from orchestrator.vnpu.binstream import VelaProgram
from orchestrator.vnpu.execute import Npu, run_program
from orchestrator.vnpu.hostlib import Operation


@dataclass(frozen=True)
class ObservedOp:
    """One NPU operation and its OFM (height, width, depth) as raw bytes per element."""

    index: int
    name: str
    word: int
    ofm: np.ndarray[Any, Any] | None   # (H, W, C, bytes) uint8; None when not in memory


def _ofm_bytes(op: Operation, region: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    if op.height0 < op.height or op.width0 < op.width:
        return None   # tiled OFM: not read back
    y = np.arange(op.height)[:, None, None, None] * op.stride_y
    x = np.arange(op.width)[None, :, None, None] * op.stride_x
    channels = np.arange(op.depth)
    c = ((channels >> 4) * op.stride_c + (channels & 15) * op.bytes if op.nhcwb16
         else channels * op.stride_c)[None, None, :, None]
    b = np.arange(op.bytes)[None, None, None, :]
    address = op.offset + y + x + c + b
    if address.min() < 0 or address.max() >= region.size:
        return None
    return region[address].copy()


def observe_program(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]]
                    ) -> tuple[list[ObservedOp], list[bytes]]:
    """Every NPU operation's OFM right after it ran, and the program's outputs."""
    seen: list[ObservedOp] = []

    def observe(op: Operation, regions: list[np.ndarray[Any, Any]]) -> None:
        ofm = _ofm_bytes(op, regions[op.region]) if 0 <= op.region < len(regions) else None
        seen.append(ObservedOp(op.index, (op.name or b"?").decode(), op.word, ofm))

    outputs = run_program(program, npu, inputs, observe)
    return seen, outputs


def _squeezed(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape if d != 1)


def _computes(op: ObservedOp, tensor: np.ndarray[Any, Any]) -> bool:
    """Whether the op's OFM has the tensor's shape (size-1 axes aside) and element size."""
    return (op.ofm is not None and op.ofm.shape[3] == tensor.dtype.itemsize
            and _squeezed(op.ofm.shape[:3]) == _squeezed(tensor.shape))


def tensor_per_operation(ops: Sequence[ObservedOp], vela_names: Sequence[str],
                         reference: dict[str, np.ndarray[Any, Any]]) -> list[str | None]:
    """The TOSA tensor each operation completes, in stream order: the next of Vela's
    operation names (else of the graph's tensors) whose shape the OFM has; None for the
    operations in between (stripes, internal tensors such as a transpose's first pass)."""
    candidates = [name for name in vela_names if name in reference] or list(reference)
    found: list[str | None] = []
    start = 0
    for op in ops:
        match = next((i for i in range(start, len(candidates))
                      if _computes(op, reference[candidates[i]])), None)
        found.append(None if match is None else candidates[match])
        start = start if match is None else match + 1
    return found


def _as_values(ofm: np.ndarray[Any, Any], like: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    dtype = np.dtype(like.dtype).newbyteorder("<")
    values: np.ndarray[Any, Any] = np.ascontiguousarray(ofm).view(dtype).reshape(ofm.shape[:3])
    return values


def _departure(got: np.ndarray[Any, Any], want: np.ndarray[Any, Any]) -> dict[str, Any] | None:
    difference = np.abs(got.astype(np.int64).reshape(-1) - want.astype(np.int64).reshape(-1))
    differing = np.flatnonzero(difference)
    if differing.size == 0:
        return None
    first, worst = int(differing[0]), int(np.argmax(difference))
    flat_got, flat_want = got.reshape(-1), want.reshape(-1)

    def element(position: int) -> dict[str, Any]:
        return {"index": [int(i) for i in np.unravel_index(position, want.shape)],
                "npu": int(flat_got[position]), "tosa": int(flat_want[position])}

    return {"differing": int(differing.size), "elements": int(want.size),
            "first": element(first), "worst": element(worst)}


def locate_departure(tosa: bytes, program: VelaProgram, npu: Npu,
                     inputs: Sequence[np.ndarray[Any, Any]], vela_names: Sequence[str] = ()
                     ) -> dict[str, Any] | None:
    """The first NPU operation whose OFM departs from the TOSA reference (None if none)."""
    reference = run_with_intermediates(tosa, inputs)
    ops, _ = observe_program(program, npu, inputs)
    tensors = tensor_per_operation(ops, vela_names, reference)
    for op, tensor in zip(ops, tensors, strict=True):
        if tensor is None or op.ofm is None:
            continue
        want = reference[tensor]
        found = _departure(_as_values(op.ofm, want).reshape(want.shape), want)
        if found is not None:
            return {"operation": op.index, "command": op.name, "word": op.word,
                    "tosa_tensor": tensor, "node": tensor,
                    "tosa_operators": operators_behind(tosa, [t for t in tensors if t])
                    .get(tensor, []), **found}
    return None


def describe_departure(found: dict[str, Any]) -> str:
    """One sentence naming the operation and its first and worst element."""
    first, worst = found["first"], found["worst"]
    return (f"first departure at NPU operation {found['operation']} ({found['command']}, "
            f"stream word {found['word']}) implementing "
            f"{'+'.join(found['tosa_operators']) or '?'} -> {found['tosa_tensor']}: "
            f"{found['differing']}/{found['elements']} differ; first at {first['index']} "
            f"NPU {first['npu']} vs TOSA {first['tosa']}, worst at {worst['index']} "
            f"NPU {worst['npu']} vs TOSA {worst['tosa']}")
