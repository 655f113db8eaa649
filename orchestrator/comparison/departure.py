"""Where a device's arrays differ from their references, bit for bit: a Departure (how many
elements differ, the first and the worst) and `judge`, the exact verdict over a program's
outputs (same count, dtype and shape, every element equal; float outputs compared bit for
bit, so -0.0 is not 0.0)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.results.model import Mismatch

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Departure:
    """How one array departs from its reference: the elements that differ, of how many, and
    the first (in memory order) and the worst (largest absolute difference) of them."""

    differing: int
    elements: int
    first: Mismatch
    worst: Mismatch

    @property
    def gap(self) -> float:
        """The worst element's absolute difference."""
        return _gap(self.worst)

    def to_json(self) -> dict[str, Any]:
        """The record every report keeps of a departure (elements without their output)."""
        return {"differing": self.differing, "elements": self.elements,
                "first": _element_json(self.first), "worst": _element_json(self.worst)}


def _element_json(element: Mismatch) -> dict[str, Any]:
    return {"index": element.index, "device": element.device, "reference": element.reference}


def _gap(element: Mismatch) -> float:
    gap = abs(float(element.device) - float(element.reference))
    return np.inf if np.isnan(gap) else gap


def _bits(array: Array) -> Array:
    """Raw bytes of each element (float values compared bit for bit, -0.0 != 0.0)."""
    contiguous = np.ascontiguousarray(array)
    return contiguous.view(np.dtype(f"V{contiguous.dtype.itemsize}")) if contiguous.size \
        else contiguous


def _value(array: Array, index: tuple[int, ...]) -> float:
    """One element as a number: an int for integer arrays, else a float."""
    value = array[index]
    return int(value) if array.dtype.kind in "iu" else float(value)


def departure(device: Array, reference: Array, output: int = 0,
              name: str = "") -> Departure | None:
    """Where `device` departs from `reference` (same shape) bit for bit, or None when every
    element is equal; `output`: which output the elements are in, `name` its path
    (`output['h']`, "" when unnamed)."""
    differ = _bits(device) != _bits(reference)
    count = int(differ.sum())
    if not count:
        return None
    gap = np.abs(device.astype(np.float64) - reference.astype(np.float64))
    gap = np.where(np.isnan(gap), np.inf, gap)
    worst = np.unravel_index(int(np.argmax(np.where(differ, gap, -1.0))), device.shape)

    def element(index: Any) -> Mismatch:
        key = tuple(int(i) for i in index)
        return Mismatch(output, list(key), _value(device, key), _value(reference, key),
                        name or None)

    return Departure(count, int(device.size), element(np.argwhere(differ)[0]), element(worst))


def bit_equal(first: Array, second: Array) -> bool:
    """Same dtype, same shape, every element the same bits (-0.0 is not 0.0, NaN equals
    the same NaN)."""
    return (first.dtype == second.dtype and first.shape == second.shape
            and bool(np.array_equal(_bits(first), _bits(second))))


def all_bit_equal(first: Sequence[Array], second: Sequence[Array]) -> bool:
    """As many arrays, each bit_equal to its counterpart."""
    return len(first) == len(second) and all(
        bit_equal(x, y) for x, y in zip(first, second, strict=True))


def differing_elements(first: Array, second: Array) -> int:
    """How many elements of two same-shape arrays differ bit for bit (all, when the shapes or
    dtypes differ)."""
    if first.shape != second.shape or first.dtype != second.dtype:
        return int(max(first.size, second.size))
    return int(np.count_nonzero(_bits(first) != _bits(second)))


def departure_sentence(found: dict[str, Any], device: str = "device",
                       reference: str = "reference") -> str:
    """The part of every departure's sentence that names its elements, from a
    Departure.to_json() record: 'D/E elements differ, first at I device x vs reference y,
    worst at J device u vs reference v' (`device`, `reference`: what each side is called)."""
    first, worst = found["first"], found["worst"]
    return (f"{found['differing']}/{found['elements']} elements differ, first at "
            f"{first['index']} {device} {_number(first['device'])} vs {reference} "
            f"{_number(first['reference'])}, worst at {worst['index']} {device} "
            f"{_number(worst['device'])} vs {reference} {_number(worst['reference'])}")


def _number(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{value:g}"


def describe(element: Mismatch) -> str:
    """'output 0[1, 2]: device 3, reference 4' (the output's path in its place when named:
    "output['h'][1, 2]: ...")."""
    where = element.name or f"output {element.output}"
    return (f"{where}{element.index}: device {element.device:.9g}, "
            f"reference {element.reference:.9g}")


@dataclass(frozen=True)
class ExactVerdict:
    """Whether every output equals the exact reference bit for bit; when not, how many
    elements differ and the first and worst of them (over all outputs)."""

    passed: bool
    mismatches: int = 0
    first: Mismatch | None = None
    worst: Mismatch | None = None
    reason: str = ""


def _name(names: Sequence[str], position: int) -> str:
    return names[position] if position < len(names) else ""


def _refusal(device: Sequence[Array], reference: Sequence[Array], names: Sequence[str]) -> str:
    """Why the outputs cannot be compared element by element ('' when they can)."""
    if len(device) != len(reference):
        return f"device gave {len(device)} outputs, the exact reference has {len(reference)}"
    for position, (got, want) in enumerate(zip(device, reference, strict=True)):
        if got.dtype != want.dtype or got.shape != want.shape:
            where = _name(names, position) or f"output {position}"
            return (f"{where} is {got.dtype}{list(got.shape)}, the exact reference "
                    f"{want.dtype}{list(want.shape)}")
    return ""


def judge(device: Sequence[Array], reference: Sequence[Array],
          names: Sequence[str] = ()) -> ExactVerdict:
    """Every output equal to the reference, same dtype and shape, bit for bit (`names`: each
    output's path, used where an output is named)."""
    refused = _refusal(device, reference, names)
    if refused:
        return ExactVerdict(False, reason=refused)
    departures = [found for position, (got, want) in enumerate(zip(device, reference,
                                                                   strict=True))
                  if (found := departure(got, want, position, _name(names, position)))
                  is not None]
    if not departures:
        return ExactVerdict(True)
    total = sum(found.differing for found in departures)
    first = departures[0].first
    worst = max(departures, key=lambda found: found.gap).worst
    return ExactVerdict(False, total, first, worst,
                        f"{total} element(s) differ from the exact reference; first "
                        f"{describe(first)}; worst {describe(worst)}")
