"""Byte sets of a memory region as spans: an (n, 2) int64 array of ascending, disjoint
[start, end) ranges. A feature map of thousands of bytes is a handful of spans (one for a
whole NHWC tensor), so a program's thousands of operations can keep what each read and wrote
without a copy of the region (or an index per byte) per operation."""

from __future__ import annotations

from typing import Any

import numpy as np

Spans = np.ndarray[Any, Any]

NO_SPANS: Spans = np.zeros((0, 2), dtype=np.int64)


def spans_of(*addresses: np.ndarray[Any, Any]) -> Spans:
    """The distinct byte offsets among `addresses` as spans (sorted: the cost is the
    addresses', not the region's)."""
    if not any(address.size for address in addresses):
        return NO_SPANS
    offsets = np.unique(np.concatenate([address.reshape(-1) for address in addresses]))
    breaks = np.flatnonzero(np.diff(offsets) != 1) + 1
    starts = offsets[np.concatenate([[0], breaks])]
    ends = offsets[np.concatenate([breaks - 1, [offsets.size - 1]])] + 1
    spans: Spans = np.stack([starts, ends], axis=1).astype(np.int64)
    return spans


def span_bytes(spans: Spans) -> np.ndarray[Any, Any]:
    """Every byte offset the spans cover, ascending (for one operation at a time)."""
    lengths = spans[:, 1] - spans[:, 0]
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    firsts = np.repeat(spans[:, 0] - np.cumsum(lengths) + lengths, lengths)
    offsets: np.ndarray[Any, Any] = firsts + np.arange(total, dtype=np.int64)
    return offsets


def span_count(spans: Spans) -> int:
    """How many bytes the spans cover."""
    return int((spans[:, 1] - spans[:, 0]).sum())
