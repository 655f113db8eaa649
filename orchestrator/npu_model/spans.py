"""Byte sets of a memory region as spans: an (n, 2) int64 array of ascending, disjoint
[start, end) ranges. A feature map of thousands of bytes is a handful of spans (one for a
whole NHWC tensor), so a program's thousands of operations can keep what each read and wrote
without a copy of the region (or an index per byte) per operation."""

from __future__ import annotations

from typing import Any

import numpy as np

Spans = np.ndarray[Any, Any]

NO_SPANS: Spans = np.zeros((0, 2), dtype=np.int64)


DENSE_FACTOR = 8   # marking a byte range costs less than sorting while it is at most this many
DENSE_SLACK = 4096  # times (plus this many bytes) the addresses given


def spans_of(*addresses: np.ndarray[Any, Any]) -> Spans:
    """The distinct byte offsets among `addresses` as spans: marked in a mask of the range they
    span when that range is not much larger than they are (a feature map, the bytes an
    operation changed), else sorted (the cost is the addresses', never the region's)."""
    if not any(address.size for address in addresses):
        return NO_SPANS
    flat = np.concatenate([address.reshape(-1) for address in addresses])
    low, high = int(flat.min()), int(flat.max())
    if high - low < DENSE_FACTOR * flat.size + DENSE_SLACK:
        return _marked_spans(flat, low, high)
    return _sorted_spans(np.unique(flat))


def repeated_spans(addresses: np.ndarray[Any, Any]) -> Spans:
    """The offsets that occur more than once in `addresses`, as spans (counted over their
    range when it is not much larger than they are, else sorted)."""
    flat = addresses.reshape(-1)
    if not flat.size:
        return NO_SPANS
    low, high = int(flat.min()), int(flat.max())
    if high - low < DENSE_FACTOR * flat.size + DENSE_SLACK:
        return spans_of(np.flatnonzero(np.bincount(flat - low) > 1) + low)
    ordered = np.sort(flat)
    return spans_of(ordered[1:][ordered[1:] == ordered[:-1]])


def _marked_spans(flat: np.ndarray[Any, Any], low: int, high: int) -> Spans:
    """Spans of the offsets in [low, high], through a mask with a clear byte on either side."""
    mark = np.zeros(high - low + 3, dtype=np.bool_)
    mark[flat - (low - 1)] = True
    edges = np.flatnonzero(mark[1:] != mark[:-1]) + low   # a span's start, then its end
    spans: Spans = edges.reshape(-1, 2).astype(np.int64)
    return spans


def _sorted_spans(offsets: np.ndarray[Any, Any]) -> Spans:
    """Spans of ascending distinct offsets."""
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
