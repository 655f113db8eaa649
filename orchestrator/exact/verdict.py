"""Device outputs vs the exact reference: bit for bit, naming the first and worst element."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Element:
    """One differing element: where it is and both values."""

    output: int
    index: tuple[int, ...]
    device: float
    reference: float
    name: str = ""      # the output's path (`output['h']`); "" when unnamed

    def describe(self) -> str:
        where = self.name or f"output {self.output}"
        return (f"{where}{list(self.index)}: device {self.device:.9g}, "
                f"reference {self.reference:.9g}")


@dataclass(frozen=True)
class ExactVerdict:
    """Whether every output equals the exact reference bit for bit."""

    passed: bool
    mismatches: int = 0
    first: Element | None = None
    worst: Element | None = None
    reason: str = ""


def _bits(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Raw bytes of each element (float outputs compared bit for bit, -0.0 != 0.0)."""
    contiguous = np.ascontiguousarray(array)
    return contiguous.view(np.dtype(f"V{contiguous.dtype.itemsize}")) if contiguous.size \
        else contiguous


def _differences(position: int, device: np.ndarray[Any, Any], reference: np.ndarray[Any, Any],
                 name: str) -> tuple[int, Element | None, Element | None]:
    differ = _bits(device) != _bits(reference)
    count = int(differ.sum())
    if not count:
        return 0, None, None
    positions = np.argwhere(differ)
    gap = np.abs(device.astype(np.float64) - reference.astype(np.float64))
    gap = np.where(np.isnan(gap), np.inf, gap)
    worst_flat = int(np.argmax(np.where(differ, gap, -1.0)))
    worst_index = np.unravel_index(worst_flat, device.shape)

    def element(index: Any) -> Element:
        key = tuple(int(i) for i in index)
        return Element(position, key, float(device[key]), float(reference[key]), name)

    return count, element(positions[0]), element(worst_index)


def _name(names: Sequence[str], position: int) -> str:
    return names[position] if position < len(names) and names[position] else ""


def judge_exact(device: Sequence[np.ndarray[Any, Any]],
                reference: Sequence[np.ndarray[Any, Any]],
                names: Sequence[str] = ()) -> ExactVerdict:
    """Every output equal to the reference, same dtype and shape, bit for bit (`names`: each
    output's path, used in the reasons)."""
    if len(device) != len(reference):
        return ExactVerdict(False, reason=f"device gave {len(device)} outputs, the exact "
                                          f"reference has {len(reference)}")
    total, first, worst = 0, None, None
    for position, (got, want) in enumerate(zip(device, reference, strict=True)):
        if got.dtype != want.dtype or got.shape != want.shape:
            where = _name(names, position) or f"output {position}"
            return ExactVerdict(False, reason=f"{where} is {got.dtype}{list(got.shape)}"
                                              f", the exact reference {want.dtype}"
                                              f"{list(want.shape)}")
        count, here_first, here_worst = _differences(position, got, want,
                                                     _name(names, position))
        total += count
        first = first or here_first
        if here_worst is not None and (worst is None or abs(here_worst.device -
                                       here_worst.reference) > abs(worst.device -
                                                                   worst.reference)):
            worst = here_worst
    if not total:
        return ExactVerdict(True)
    assert first is not None and worst is not None
    return ExactVerdict(False, total, first, worst,
                        f"{total} element(s) differ from the exact reference; first "
                        f"{first.describe()}; worst {worst.describe()}")
