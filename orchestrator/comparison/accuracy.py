"""Device outputs vs the float model: SNR, error in quantization steps, top-1/top-5, and the
one check of the accuracy gates (--min-snr, --top1) over a run's outputs or a data set's
samples."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from orchestrator.comparison.thresholds import Thresholds
from orchestrator.results.model import OutputAccuracy

TOP_K = 5
Array = np.ndarray[Any, Any]


def snr_db(reference: Array, device: Array) -> float:
    """10 log10(signal / noise) with the reference as signal; inf when equal."""
    noise = float(np.sum((reference - device) ** 2))
    signal = float(np.sum(reference ** 2))
    if noise == 0.0:
        return math.inf
    return -math.inf if signal == 0.0 else 10.0 * math.log10(signal / noise)


def classifier_rows(array: Array) -> Array | None:
    """The one rule for classifier-like scores: [classes] or [batch, classes] with at least two
    classes, as (batch, classes) rows; else None."""
    if array.ndim == 0 or array.ndim > 2 or array.shape[-1] < 2:
        return None
    return array.reshape(-1, array.shape[-1])


def predicted_class(output: Array) -> int | None:
    """The argmax of one sample's classifier-like scores (classifier_rows with one row);
    else None."""
    rows = classifier_rows(output)
    if rows is None or rows.shape[0] != 1:
        return None
    return int(np.argmax(rows[0]))


def top_k_agree(device: Array, reference: Array, k: int) -> bool | None:
    """Does the reference's best class appear in the device's top k (every row)?"""
    got, want = classifier_rows(device), classifier_rows(reference)
    if got is None or want is None or got.shape[-1] < k:
        return None
    best = want.argmax(-1)
    top = np.argsort(-got, axis=-1, kind="stable")[:, :k]
    return bool(all(best[row] in top[row] for row in range(got.shape[0])))


def quant_step(reference: Array) -> float | None:
    """The quantization step of a dequantized output, read off the grid its values lie on."""
    values = np.unique(reference.astype(np.float64))
    if values.size < 3:
        return None
    step = float(np.diff(values).min())
    units = (values - values[0]) / step
    return step if step > 0 and float(np.abs(units - np.round(units)).max()) < 1e-2 else None


def output_accuracy(index: int, device: Array, reference: Array,
                    step: float | None, name: str = "") -> OutputAccuracy:
    """How far one output (same shape as its reference) is from it; errors also in
    quantization steps of `step` when given."""
    got = device.astype(np.float64)
    want = reference.astype(np.float64)
    diff = np.abs(got - want)
    max_abs = float(diff.max()) if diff.size else 0.0
    mean_abs = float(diff.mean()) if diff.size else 0.0
    steps = step if step else None
    return OutputAccuracy(index, snr_db(want, got), max_abs, mean_abs, steps,
                          max_abs / steps if steps else None,
                          mean_abs / steps if steps else None,
                          top_k_agree(got, want, 1), top_k_agree(got, want, TOP_K),
                          name or None)


class Measured(Protocol):
    """What the gates read of an output (OutputAccuracy) or a data set's sample."""

    @property
    def index(self) -> int: ...

    @property
    def snr_db(self) -> Any: ...

    @property
    def top1(self) -> bool | None: ...


def gated(thresholds: Thresholds) -> bool:
    """Whether any accuracy gate was asked for (they are off by default)."""
    return thresholds.min_snr_db is not None or thresholds.require_top1


def gate_failures(measured: Sequence[Measured], thresholds: Thresholds,
                  what: str = "output") -> list[str]:
    """Why the accuracy gates fail over `measured` (a run's outputs, or the samples of a data
    set, named `what`, or by an output's path where it has one): the worst SNR below the
    minimum, top-1 classes that differ from the float model's. Empty: passed, or no gate
    asked for."""
    reasons = []
    snrs = [(item.snr_db, item.index, getattr(item, "name", None) or f"{what} {item.index}")
            for item in measured if item.snr_db is not None]
    minimum = thresholds.min_snr_db
    if minimum is not None and snrs and min(snrs)[0] < minimum:
        worst, _, where = min(snrs)
        reasons.append(f"SNR {worst:.1f} dB on {where} < {minimum:g} dB")
    known = [item.top1 for item in measured if item.top1 is not None]
    if thresholds.require_top1 and False in known:
        reasons.append(f"top-1 class differs from the float model on {known.count(False)} of "
                       f"{len(known)} {what}s")
    return reasons
