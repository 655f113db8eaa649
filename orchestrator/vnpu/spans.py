"""Byte sets of a memory region as spans: an (n, 2) int64 array of ascending, disjoint
[start, end) ranges. A feature map of thousands of bytes is a handful of spans (one for a
whole NHWC tensor), so a program's thousands of operations can keep what each read and wrote
without a copy of the region (or an index per byte) per operation."""

from __future__ import annotations

from typing import Any

import numpy as np

Spans = np.ndarray[Any, Any]

NO_SPANS: Spans = np.zeros((0, 2), dtype=np.int64)


def spans_of_mask(mask: np.ndarray[Any, Any]) -> Spans:
    """The runs of True in a boolean mask."""
    edges = np.flatnonzero(np.diff(mask.view(np.int8), prepend=0, append=0))
    return edges.astype(np.int64).reshape(-1, 2)


def spans_of(size: int, *addresses: np.ndarray[Any, Any]) -> Spans:
    """The distinct byte offsets among `addresses` (all inside [0, size)) as spans."""
    if not any(address.size for address in addresses):
        return NO_SPANS
    mask = np.zeros(size, dtype=bool)
    for address in addresses:
        mask[address.reshape(-1)] = True
    return spans_of_mask(mask)


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
