"""The tolerance comparison, for a product without an exact reference: integer outputs must
be equal; float outputs may differ by atol + rtol * the reference's peak (plus `qtol`
quantization steps when the reference is the quantized model's). The numbers are those of
accuracy.output_accuracy; the accuracy gates are checked apart (accuracy.gate_failures)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orchestrator.comparison.accuracy import output_accuracy, quant_step
from orchestrator.comparison.departure import bit_equal
from orchestrator.comparison.thresholds import Thresholds

DEFAULT_THRESHOLDS = Thresholds()
Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class OutputComparison:
    """The numbers for one output and whether it passed."""

    index: int
    dtype: str
    shape: tuple[int, ...]
    max_abs_error: float
    mean_abs_error: float
    snr_db: float
    exact: bool
    top1_match: bool | None
    passed: bool
    reason: str = ""
    quant_step: float | None = None
    quant_steps: float | None = None   # max abs error in quantization steps

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["shape"] = list(self.shape)
        data["snr_db"] = None if math.isinf(self.snr_db) else self.snr_db
        return data


@dataclass(frozen=True)
class ToleranceComparison:
    """All outputs; passed only if every output passed and the counts agree."""

    outputs: list[OutputComparison] = field(default_factory=list)
    reason: str = ""

    @property
    def passed(self) -> bool:
        return not self.reason and all(o.passed for o in self.outputs)


def compare_outputs(device: Sequence[Array], reference: Sequence[Array],
                    thresholds: Thresholds = DEFAULT_THRESHOLDS,
                    quantized: bool = False) -> ToleranceComparison:
    """Compare numpy arrays pairwise (device[i] with reference[i]); `quantized`: the reference
    is the quantized model's, so float outputs may differ by `qtol` quantization steps."""
    if len(device) != len(reference):
        return ToleranceComparison(reason=f"device gave {len(device)} outputs, reference has "
                                          f"{len(reference)}")
    return ToleranceComparison([_compare_one(i, d, r, thresholds, quantized)
                                for i, (d, r) in enumerate(zip(device, reference, strict=True))])


def _compare_one(index: int, device: Array, reference: Array, limits: Thresholds,
                 quantized: bool) -> OutputComparison:
    if tuple(device.shape) != tuple(reference.shape):
        why = f"shape {tuple(device.shape)} != reference {tuple(reference.shape)}"
        return OutputComparison(index, str(device.dtype), tuple(device.shape), math.inf,
                                math.inf, -math.inf, False, None, False, why)
    integer = device.dtype.kind in "iub" and reference.dtype.kind in "iub"
    step = quant_step(reference) if quantized and not integer else None
    found = output_accuracy(index, device, reference, step)
    assert found.max_abs_error is not None and found.mean_abs_error is not None
    # bits where the dtypes agree (-0.0 is not 0.0, a NaN equals itself); values across dtypes
    exact = (bit_equal(device, reference) if device.dtype == reference.dtype
             else bool(np.array_equal(device, reference)))
    passed, reason = _verdict(integer, exact, found.max_abs_error,
                              float(np.abs(reference.astype(np.float64)).max(initial=0.0)),
                              limits, limits.qtol * step if step else 0.0)
    return OutputComparison(index, str(device.dtype), tuple(device.shape), found.max_abs_error,
                            found.mean_abs_error, found.snr_db, exact, found.top1, passed,
                            reason, step, found.max_abs_steps)


def _verdict(integer: bool, exact: bool, max_abs: float, ref_peak: float, limits: Thresholds,
             allowance: float) -> tuple[bool, str]:
    if integer:
        return exact, "" if exact else "integer output differs from the reference"
    bound = limits.atol + limits.rtol * ref_peak + allowance
    if max_abs > bound:
        return False, f"max abs error {max_abs:.3g} > {bound:.3g}"
    return True, ""
