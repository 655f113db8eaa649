"""Compare the device's outputs with the host references: errors, SNR, top-1, exactness."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from orchestrator.options.run import Thresholds

DEFAULT_THRESHOLDS = Thresholds()


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
class Comparison:
    """All outputs; passed only if every output passed and the counts agree."""

    outputs: list[OutputComparison] = field(default_factory=list)
    reason: str = ""

    @property
    def passed(self) -> bool:
        return not self.reason and all(o.passed for o in self.outputs)


def compare_outputs(device: Sequence[Any], reference: Sequence[Any],
                    thresholds: Thresholds = DEFAULT_THRESHOLDS,
                    quantized: bool = False) -> Comparison:
    """Compare numpy arrays pairwise (device[i] with reference[i]); `quantized`: the reference
    is the quantized model's, so float outputs may differ by `qtol` quantization steps."""
    if len(device) != len(reference):
        return Comparison(reason=f"device gave {len(device)} outputs, reference has "
                                 f"{len(reference)}")
    return Comparison([_compare_one(i, d, r, thresholds, quantized)
                       for i, (d, r) in enumerate(zip(device, reference, strict=True))])


def quant_step(reference: Any) -> float | None:
    """The quantization step of a dequantized output, read off the grid its values lie on."""
    import numpy as np

    values = np.unique(reference.astype(np.float64))
    if values.size < 3:
        return None
    step = float(np.diff(values).min())
    units = (values - values[0]) / step
    return step if step > 0 and float(np.abs(units - np.round(units)).max()) < 1e-2 else None


def _compare_one(index: int, device: Any, reference: Any, limits: Thresholds,
                 quantized: bool = False) -> OutputComparison:
    import numpy as np

    if tuple(device.shape) != tuple(reference.shape):
        why = f"shape {tuple(device.shape)} != reference {tuple(reference.shape)}"
        return OutputComparison(index, str(device.dtype), tuple(device.shape), math.inf,
                                math.inf, -math.inf, False, None, False, why)
    got = device.astype(np.float64)
    want = reference.astype(np.float64)
    diff = np.abs(got - want)
    max_abs = float(diff.max()) if diff.size else 0.0
    mean_abs = float(diff.mean()) if diff.size else 0.0
    exact = bool(np.array_equal(device, reference))
    top1 = _top1(got, want)
    integer = device.dtype.kind in "iub" and reference.dtype.kind in "iub"
    step = quant_step(reference) if quantized and not integer else None
    allowance = limits.qtol * step if step else 0.0
    passed, reason = _verdict(integer, exact, max_abs, float(np.abs(want).max(initial=0.0)),
                              _snr_db(want, got), top1, limits, allowance)
    return OutputComparison(index, str(device.dtype), tuple(device.shape), max_abs, mean_abs,
                            _snr_db(want, got), exact, top1, passed, reason, step,
                            max_abs / step if step else None)


def _verdict(integer: bool, exact: bool, max_abs: float, ref_peak: float, snr: float,
             top1: bool | None, limits: Thresholds, allowance: float = 0.0) -> tuple[bool, str]:
    if integer:
        return exact, "" if exact else "integer output differs from the reference"
    bound = limits.atol + limits.rtol * ref_peak + allowance
    if max_abs > bound:
        return False, f"max abs error {max_abs:.3g} > {bound:.3g}"
    if limits.min_snr_db is not None and snr < limits.min_snr_db:
        return False, f"SNR {snr:.1f} dB < {limits.min_snr_db} dB"
    if limits.require_top1 and top1 is False:
        return False, "top-1 class differs from the reference"
    return True, ""


def _snr_db(reference: Any, device: Any) -> float:
    from orchestrator.exact.accuracy import snr_db

    return snr_db(reference, device)


def _top1(device: Any, reference: Any) -> bool | None:
    """Top-1 agreement for classifier-like outputs (a batch of >=2 scores), else None."""
    if device.ndim == 0 or device.shape[-1] < 2 or device.size != device.shape[-1] * (
            device.size // device.shape[-1]) or device.ndim > 2:
        return None
    return bool((device.reshape(-1, device.shape[-1]).argmax(-1)
                 == reference.reshape(-1, reference.shape[-1]).argmax(-1)).all())
