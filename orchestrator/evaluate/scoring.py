"""Score a session sample by sample: bit-exact against the exact reference of that input,
agreement with the float model (top-1/top-5, SNR), and the task's labels for the float
model, the host integer program and the device (numpy only)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orchestrator.comparison.accuracy import output_accuracy, predicted_class
from orchestrator.comparison.departure import judge

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class SampleScore:
    """One input set: where it came from and how each program did on it."""

    index: int
    file: str
    label: int | None
    cycles: int | None = None
    exact: bool | None = None          # None: no exact reference (see the product)
    mismatch: str = ""
    snr_db: float | None = None
    max_abs_steps: float | None = None
    top1: bool | None = None
    top5: bool | None = None
    float_class: int | None = None
    host_class: int | None = None
    device_class: int | None = None
    error_steps: list[float] = field(default_factory=list)   # device - float, output 0


def score_sample(index: int, file: str, label: int | None, cycles: int | None,
                 device: Sequence[Array], exact: Sequence[Array] | None,
                 floating: Sequence[Array], quant_step: float | None,
                 names: Sequence[str] = ()) -> SampleScore:
    """Every number of one sample (output 0 is the one classified and compared; `names`:
    each output's path, used in a mismatch's reason)."""
    verdict = judge(device, exact, names) if exact is not None else None
    got, want = device[0], floating[0]
    accuracy = output_accuracy(0, got, want, quant_step) if got.shape == want.shape else None
    steps = quant_step or 1.0
    error = ((got.astype(np.float64) - want.astype(np.float64)) / steps).reshape(-1) \
        if accuracy is not None else np.zeros(0)
    return SampleScore(
        index=index, file=file, label=label, cycles=cycles,
        exact=verdict.passed if verdict else None, mismatch=verdict.reason if verdict else "",
        snr_db=accuracy.snr_db if accuracy else None,
        max_abs_steps=accuracy.max_abs_steps if accuracy else None,
        top1=accuracy.top1 if accuracy else None, top5=accuracy.top5 if accuracy else None,
        float_class=predicted_class(want), host_class=predicted_class(exact[0]) if exact
        else None, device_class=predicted_class(got),
        error_steps=[float(value) for value in error])


def _rate(values: Sequence[bool | None]) -> float | None:
    known = [value for value in values if value is not None]
    return sum(known) / len(known) if known else None


def _task_accuracy(scores: Sequence[SampleScore], attribute: str) -> float | None:
    pairs = [(getattr(s, attribute), s.label) for s in scores if s.label is not None]
    known = [(got, label) for got, label in pairs if got is not None]
    return sum(got == label for got, label in known) / len(known) if known else None


def _finite_snrs(scores: Sequence[SampleScore]) -> list[float]:
    return [s.snr_db for s in scores if s.snr_db is not None and math.isfinite(s.snr_db)]


def summarize(scores: Sequence[SampleScore], requested: int) -> dict[str, Any]:
    """The data set's numbers: exactness, agreement with the float model, task accuracy."""
    snrs = _finite_snrs(scores)
    exact_known = [s for s in scores if s.exact is not None]
    return {
        "requested": requested, "completed": len(scores),
        "exact": sum(bool(s.exact) for s in exact_known) if exact_known else None,
        "not_exact": [s.index for s in exact_known if not s.exact],
        "top1_agreement": _rate([s.top1 for s in scores]),
        "top5_agreement": _rate([s.top5 for s in scores]),
        "snr_db_mean": sum(snrs) / len(snrs) if snrs else None,
        "snr_db_min": min(snrs) if snrs else None,
        "snr_infinite": sum(1 for s in scores if s.snr_db == math.inf),
        "labelled": sum(1 for s in scores if s.label is not None),
        "accuracy": {"float": _task_accuracy(scores, "float_class"),
                     "host_integer": _task_accuracy(scores, "host_class"),
                     "device": _task_accuracy(scores, "device_class")},
        "host_device_same_class": _rate([s.host_class == s.device_class for s in scores
                                         if s.host_class is not None]),
        "cycles_mean": (sum(s.cycles for s in scores if s.cycles is not None) /
                        len(scores)) if scores and all(s.cycles is not None for s in scores)
        else None,
    }


def per_class(scores: Sequence[SampleScore]) -> dict[int, dict[str, float]]:
    """{label: {float, host_integer, device: accuracy}} over the labelled samples."""
    table: dict[int, dict[str, float]] = {}
    labels = sorted({s.label for s in scores if s.label is not None})
    for label in labels:
        members = [s for s in scores if s.label == label]
        table[label] = {name: sum(getattr(s, attribute) == label for s in members) / len(members)
                        for name, attribute in (("float", "float_class"),
                                                ("host_integer", "host_class"),
                                                ("device", "device_class"))}
    return table
