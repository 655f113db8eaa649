"""Judge a device's outputs against a bundled test case: floats with upstream's rule
(devtools/bundled_program/bundled_program.cpp elem_is_close: NaN equals NaN, same-signed
infinities are equal, |a - b| <= atol + |rtol * b|, exact when atol = rtol = 0), integers
exactly; per output the largest difference in quantized steps and, where the program records
the output's scale, in real units (numpy only)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.artifacts.bundle import BundledValue
from orchestrator.artifacts.program import Quantization

# examples/arm/executor_runner/arm_executor_runner.cpp (ET_ATOL / ET_RTOL defaults).
UPSTREAM_ATOL = 0.01
UPSTREAM_RTOL = 0.01
Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class OutputCheck:
    """One output of one test case."""

    case: int
    output: int
    dtype: str
    elements: int
    mismatches: int
    max_abs_error: float
    max_steps: float | None = None      # the largest difference in quantized steps
    max_real: float | None = None       # ... in real units (the output's scale known)
    shape_error: str = ""

    @property
    def passed(self) -> bool:
        return not self.shape_error and self.mismatches == 0


def expected_array(value: BundledValue) -> Array:
    """A bundled tensor in its logical shape (its bytes are stored in its dim order)."""
    order = value.dim_order or tuple(range(len(value.shape)))
    stored = np.frombuffer(value.data, dtype=np.dtype(value.dtype).newbyteorder("<"))
    stored = stored.reshape(tuple(value.shape[axis] for axis in order))
    return np.array(np.transpose(stored, tuple(int(a) for a in np.argsort(order)))
                    if stored.ndim else stored)


def close(got: Array, want: Array, atol: float, rtol: float) -> Array:
    """Upstream's elem_is_close, element by element."""
    if not np.issubdtype(want.dtype, np.floating):
        return np.asarray(got == want)
    a, b = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    same_inf = ~np.isfinite(a) & ~np.isfinite(b) & ((a > 0) == (b > 0)) & ~both_nan
    if atol == 0 and rtol == 0:
        within = a == b
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            error = np.abs(a - b)
            within = np.isfinite(error) & (error <= atol + np.abs(rtol * b))
    return np.asarray(both_nan | same_inf | within)


def check_output(case: int, index: int, got: Array, want: Array, atol: float, rtol: float,
                 quant: Quantization | None) -> OutputCheck:
    """One output against its expected value."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return OutputCheck(case, index, str(want.dtype), int(want.size), int(want.size), 0.0,
                           shape_error=f"the device gave {got.dtype}{list(got.shape)}, the "
                                       f"bundle expects {want.dtype}{list(want.shape)}")
    ok = close(got, want, atol, rtol)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
    finite = diff[np.isfinite(diff)]
    worst = float(finite.max()) if finite.size else 0.0
    integer = not np.issubdtype(want.dtype, np.floating)
    steps: float | None
    real: float | None
    if integer:
        steps, real = worst, worst * quant.scale if quant else None
    else:
        steps, real = (worst / quant.scale if quant else None), worst
    return OutputCheck(case, index, str(want.dtype), int(want.size), int((~ok).sum()), worst,
                       steps, real)


def check_case(case: int, device: Sequence[Array], expected: Sequence[BundledValue],
               atol: float, rtol: float, quantization: Sequence[Quantization | None]
               ) -> list[OutputCheck]:
    """Every output of one test case (a missing device output is a mismatch)."""
    checks = []
    for index, value in enumerate(expected):
        want = expected_array(value)
        quant = quantization[index] if index < len(quantization) else None
        if index >= len(device):
            checks.append(OutputCheck(case, index, str(want.dtype), int(want.size),
                                      int(want.size), 0.0, shape_error="the device gave no "
                                      "such output"))
            continue
        checks.append(check_output(case, index, device[index], want, atol, rtol, quant))
    return checks
