"""spans_of: the same spans whether the offsets are marked in a mask of their range (dense) or
sorted (sparse), and both equal to the spans read off the distinct offsets one by one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from orchestrator.npu_model.spans import (
    DENSE_FACTOR,
    DENSE_SLACK,
    NO_SPANS,
    repeated_spans,
    span_bytes,
    spans_of,
)


def spans_one_by_one(offsets: np.ndarray[Any, Any]) -> list[list[int]]:
    found: list[list[int]] = []
    for offset in sorted(set(offsets.tolist())):
        if found and found[-1][1] == offset:
            found[-1][1] += 1
        else:
            found.append([offset, offset + 1])
    return found


@pytest.mark.parametrize("spread", [1, 3, DENSE_FACTOR * 4], ids=["packed", "gaps", "sparse"])
def test_spans_of_matches_the_distinct_offsets(spread: int) -> None:
    generator = np.random.default_rng(31)
    for _ in range(20):
        count = int(generator.integers(1, 3000))
        offsets = generator.integers(0, count * spread + 1, size=count) + 10_000
        halves = np.array_split(offsets, 2)
        spans = spans_of(*halves)
        assert spans.dtype == np.int64
        assert spans.tolist() == spans_one_by_one(offsets)
        assert span_bytes(spans).tolist() == sorted(set(offsets.tolist()))


def test_both_ways_are_taken() -> None:
    """The dense mask for a feature map's worth of bytes, sorting for a few far apart."""
    near = np.arange(100, 200)
    far = np.array([0, DENSE_FACTOR * 10 + DENSE_SLACK + 1])
    assert spans_of(near).tolist() == [[100, 200]]
    assert spans_of(far).tolist() == [[0, 1], [far[1], far[1] + 1]]
    assert spans_of(np.zeros(0, dtype=np.int64)) is NO_SPANS


@pytest.mark.parametrize("spread", [1, DENSE_FACTOR * 4], ids=["dense", "sparse"])
def test_repeated_spans_are_the_offsets_seen_twice(spread: int) -> None:
    generator = np.random.default_rng(85)
    for _ in range(20):
        count = int(generator.integers(1, 3000))
        offsets = generator.integers(0, count * spread + 1, size=count)
        values, counts = np.unique(offsets, return_counts=True)
        assert repeated_spans(offsets.reshape(-1, 1)).tolist() == spans_one_by_one(
            values[counts > 1])
