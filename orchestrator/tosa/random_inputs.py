"""The one drawer of seeded random inputs for a partition's graph (`invoke verify` and the
toolset A/B's first differing operator), and why its ranges are what they are.

Random tensors exercise saturation and rounding far more than real data: 8- and 16-bit
integers (quantized activations) over the whole dtype range; 32-bit and wider integers
(lengths, indices, counts beside the features) over WIDE_INPUT_RANGE, the int16 range,
because TOSA leaves int32 overflow undefined and a model computing `lengths * 2` or a sum of
such inputs overflows on full-range values (a product of two or a sum of 2^16 of them stays in
int32); floats from a standard normal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

WIDE_INPUT_RANGE = (-(1 << 15), (1 << 15) - 1)


class InputTensor(Protocol):
    """What the drawer needs of an input: its numpy dtype name and shape."""

    @property
    def dtype(self) -> str: ...

    @property
    def shape(self) -> tuple[int, ...]: ...


def random_range(dtype: str) -> tuple[int, int]:
    """The range random inputs of an integer dtype are drawn from: the whole range up to 16
    bits, WIDE_INPUT_RANGE (clipped to the dtype) beyond."""
    info = np.iinfo(np.dtype(dtype))
    if info.bits <= 16:
        return int(info.min), int(info.max)
    return max(int(info.min), WIDE_INPUT_RANGE[0]), min(int(info.max), WIDE_INPUT_RANGE[1])


def draw_inputs(tensors: Sequence[InputTensor], seed: int) -> list[np.ndarray[Any, Any]]:
    """Seeded tensors, one per input in order: integers over their random_range, floats from
    a standard normal."""
    generator = np.random.default_rng(seed)
    arrays = []
    for tensor in tensors:
        dtype = np.dtype(tensor.dtype)
        if dtype.kind == "f":
            arrays.append(generator.standard_normal(tensor.shape).astype(dtype))
            continue
        low, high = random_range(tensor.dtype)
        arrays.append(generator.integers(low, high, size=tensor.shape, endpoint=True,
                                         dtype=dtype))
    return arrays
