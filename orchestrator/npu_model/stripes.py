"""Channel stripes, for localisation: Vela may compute one tensor in several NPU operations,
each storing some of its channels (a Linear of 128 outputs as two operations of 64, when its
weights are streamed in parts). No stripe has the tensor's shape; placed where their addresses
put them they are the tensor, and each is compared with the channels it holds.

Operations are stripes of one tensor only when they store into one region with one height,
width and element size, and their channels, ordered by address, make every (row, column)
one contiguous run of bytes (an NHWC tensor, nothing between or over them); anything else
(an NHCWB16 store, row stripes) is not assembled, so never compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.npu_model.observe import ObservedOp


@dataclass(frozen=True)
class Stripes:
    """Operations (stream order) storing channels of one tensor: `first_channels[k]` is the
    tensor's channel operation k's channel 0 is; `ofm` the tensor (height, width, depth,
    element byte) they store together."""

    operations: tuple[ObservedOp, ...]
    first_channels: tuple[int, ...]
    ofm: np.ndarray[Any, Any]


def _stripe_shape(op: ObservedOp) -> tuple[int, int, int, int] | None:
    """(region, height, width, element bytes) of an OFM stored in memory as it was computed."""
    if op.ofm is None or op.ofm_at is None or op.transposed or op.chained_in:
        return None
    height, width, _depth, element = op.ofm.shape
    return op.ofm_region, height, width, element


def _contiguous_channels(address: np.ndarray[Any, Any]) -> bool:
    """Whether every (row, column) of `address` (height, width, depth, byte) is one run of
    consecutive bytes, and no byte is addressed twice."""
    height, width, depth, element = address.shape
    runs = address.reshape(height, width, depth * element)
    consecutive = np.array_equal(runs - runs[:, :, :1], np.broadcast_to(
        np.arange(depth * element), runs.shape))
    return consecutive and np.unique(address).size == address.size


def channel_stripes(operations: Sequence[ObservedOp]) -> Stripes | None:
    """The tensor `operations` (two or more) store together as channel stripes, else None."""
    shapes = {_stripe_shape(op) for op in operations}
    stored = [(op.ofm_at, op.ofm) for op in operations
              if op.ofm_at is not None and op.ofm is not None]
    if len(operations) < 2 or len(shapes) != 1 or None in shapes:
        return None
    order = sorted(range(len(stored)), key=lambda k: int(stored[k][0].reshape(-1)[0]))
    if not _contiguous_channels(np.concatenate([stored[k][0] for k in order], axis=2)):
        return None
    depths = [stored[k][1].shape[2] for k in order]
    starts = dict(zip(order, np.cumsum([0, *depths[:-1]]).tolist(), strict=True))
    ofm = np.concatenate([stored[k][1] for k in order], axis=2)
    return Stripes(tuple(operations), tuple(int(starts[k]) for k in range(len(stored))), ofm)
