"""Device outputs vs the float model: SNR, error in quantization steps, top-1/top-5."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

TOP_K = 5


@dataclass(frozen=True)
class OutputAccuracy:
    """How far one device output is from the float model's."""

    index: int
    snr_db: float
    max_abs_error: float
    mean_abs_error: float
    quant_step: float | None
    max_abs_steps: float | None
    mean_abs_steps: float | None
    top1: bool | None
    top5: bool | None
    name: str = ""     # the output's path (`output[0]`); "" when unnamed

    def label(self) -> str:
        return self.name or f"output {self.index}"


@dataclass(frozen=True)
class Gates:
    """Optional accuracy thresholds (off by default)."""

    min_snr_db: float | None = None
    require_top1: bool = False

    @property
    def active(self) -> bool:
        return self.min_snr_db is not None or self.require_top1


def snr_db(reference: np.ndarray[Any, Any], device: np.ndarray[Any, Any]) -> float:
    """10 log10(signal / noise) with the reference as signal; inf when equal."""
    noise = float(np.sum((reference - device) ** 2))
    signal = float(np.sum(reference ** 2))
    if noise == 0.0:
        return math.inf
    return -math.inf if signal == 0.0 else 10.0 * math.log10(signal / noise)


def _rows(array: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """Classifier-like scores as (batch, classes), else None."""
    if array.ndim == 0 or array.ndim > 2 or array.shape[-1] < 2:
        return None
    return array.reshape(-1, array.shape[-1])


def top_k_agree(device: np.ndarray[Any, Any], reference: np.ndarray[Any, Any],
                k: int) -> bool | None:
    """Does the reference's best class appear in the device's top k (every row)?"""
    got, want = _rows(device), _rows(reference)
    if got is None or want is None or got.shape[-1] < k:
        return None
    best = want.argmax(-1)
    top = np.argsort(-got, axis=-1, kind="stable")[:, :k]
    return bool(all(best[row] in top[row] for row in range(got.shape[0])))


def output_accuracy(index: int, device: np.ndarray[Any, Any], reference: np.ndarray[Any, Any],
                    quant_step: float | None, name: str = "") -> OutputAccuracy:
    got = device.astype(np.float64)
    want = reference.astype(np.float64)
    diff = np.abs(got - want)
    max_abs = float(diff.max()) if diff.size else 0.0
    mean_abs = float(diff.mean()) if diff.size else 0.0
    steps = quant_step if quant_step else None
    return OutputAccuracy(index, snr_db(want, got), max_abs, mean_abs, steps,
                          max_abs / steps if steps else None,
                          mean_abs / steps if steps else None,
                          top_k_agree(got, want, 1), top_k_agree(got, want, TOP_K), name)


def gate_failures(outputs: Sequence[OutputAccuracy], gates: Gates) -> list[str]:
    """Why the accuracy gates fail (empty: passed or no gates)."""
    reasons = []
    for output in outputs:
        if gates.min_snr_db is not None and output.snr_db < gates.min_snr_db:
            reasons.append(f"{output.label()}: SNR {output.snr_db:.1f} dB < "
                           f"{gates.min_snr_db:g} dB")
        if gates.require_top1 and output.top1 is False:
            reasons.append(f"{output.label()}: top-1 class differs from the float model")
    return reasons
