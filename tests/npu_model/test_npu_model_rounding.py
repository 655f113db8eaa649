"""Every OFM rounding mode of the NPU model, on hand-built streams (no compile).

Vela 5.1.0 emits only ROUND_MODE_DBL (TFL) and NATURAL for U55/U65: regor never sets
RoundMode::TRUNCATE outside its constant folder (compiler/graphir_optimiser.cpp Scale(), lines
420-460), and TRUNCATE_TO_LOWER has no U55 encoding (architecture/ethosu55/
ethos_u55_register_cs_generator.cpp MapHLCRoundModeToInterface, lines 196-211, maps only
NATURAL, TRUNCATE, DBL/AUTO). regor sets TRUNCATE_TO_LOWER for an ARITHMETIC_RIGHT_SHIFT
without rounding (graphir_optimiser.cpp:197; ExecuTorch always asks for rounding on the U55
subset, backends/arm/operators/op_tosa_rshift_tensor.py), for a native ArgMax
(graphir_optimiser.cpp:2942) and for the average-pool scaling decomposition
(scheduler_decompose.cpp:3179), both U85 only (ethos_u85_constraints.cpp:740/751; U55 ArgMax
is decomposed). So the three encodings the OFM_PRECISION rounding field defines
(ethos_u55_regs `rounding`: TFL, TRUNCATE, NATURAL) are checked here against regor's own
definition of each, Scale(): round = 2^(shift-1) (NATURAL); plus +-2^30 by the sign of the
value when shift > 31 (DBL); 0 for values >= 0 else 2^shift - 1 (TRUNCATE: toward zero).
"""

from __future__ import annotations

import numpy as np
import pytest
from npu_model_stream import Elementwise, regs, run

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
SHIFTS = (1, 7, 16, 30, 31, 32, 33, 40, 48)
SCALES = (1, 3, 1 << 30, 1234567891, (1 << 31) + 1, (1 << 32) - 1)


def regor_scale(value: int, scale: int, shift: int, mode: str) -> int:
    """graphir_optimiser.cpp Scale(): (value * scale + round) >> shift, then int32 saturation."""
    round_value = 1 << (shift - 1)
    if mode == "TFL" and shift > 31:
        round_value += (1 << 30) if value >= 0 else -(1 << 30)
    elif mode == "TRUNCATE":
        round_value = 0 if value >= 0 else (1 << shift) - 1
    return min(max((value * scale + round_value) >> shift, INT32_MIN), INT32_MAX)


def probe_values(shift: int, scale: int) -> list[int]:
    """Exact halves, one either side of them, signs and extremes for this shift and scale."""
    values = {0, 1, -1, INT32_MIN, INT32_MAX, 12345, -12345}
    for k in (-3, -1, 0, 1, 2, 1000, -1000):
        for delta in (-1, 0, 1):
            # value * scale lands on (k + 1/2) * 2^shift + delta, where scale allows it
            target = (2 * k + 1) << (shift - 1)
            value = target // scale + delta
            if INT32_MIN <= value <= INT32_MAX:
                values.add(value)
    return sorted(values)


def mul_by_one(count: int, scale: int, shift: int, rounding: str | int) -> Elementwise:
    """OFM = IFM * 1 scaled by OFM_SCALE in `rounding`: int32 in, int32 out."""
    return Elementwise("MUL", count, ifm="S32", ofm="S32", scalar=1, scale=scale, shift=shift,
                       rounding=rounding, ofm_offset=4 * count)


def model_scale(values: list[int], scale: int, shift: int, rounding: str) -> list[int]:
    scratch = np.zeros(2 * len(values), dtype=np.int32)
    scratch[:len(values)] = values
    code, message = run(mul_by_one(len(values), scale, shift, rounding).stream().payload(),
                        scratch.view(np.uint8))
    assert code == 0, message
    return [int(v) for v in scratch[len(values):]]


@pytest.mark.parametrize("mode", ["TFL", "TRUNCATE", "NATURAL"])
def test_every_round_mode_is_regor_scale(mode: str) -> None:
    for shift in SHIFTS:
        for scale in SCALES:
            values = probe_values(shift, scale)
            got = model_scale(values, scale, shift, mode)
            want = [regor_scale(v, scale, shift, mode) for v in values]
            assert got == want, (mode, shift, scale)


def test_the_modes_differ_where_regor_says_they_do() -> None:
    """Halves below zero: NATURAL rounds up, TFL away from zero (shift > 31), TRUNCATE to zero."""
    scale, shift = 4, 32
    half, quarter = -3 << 29, -5 << 28                # -1.5 and -1.25 after scale and shift
    assert model_scale([half], scale, shift, "NATURAL") == [-1]
    assert model_scale([half], scale, shift, "TFL") == [-2]
    assert model_scale([half], scale, shift, "TRUNCATE") == [-1]
    assert model_scale([quarter, -quarter], scale, shift, "TRUNCATE") == [-1, 1]
    assert model_scale([quarter, -half], scale, shift, "NATURAL") == [-1, 2]


def test_the_reserved_round_mode_is_refused() -> None:
    reserved = 1 + max(member.value for member in regs().rounding)
    payload = mul_by_one(1, 1, 1, reserved).stream().payload()
    code, message = run(payload, np.zeros(2, dtype=np.int32).view(np.uint8))
    assert code == 3 and f"round mode {reserved}" in message
