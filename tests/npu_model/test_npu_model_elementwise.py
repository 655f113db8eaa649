"""Shifts from PyTorch (`>>`, `<<`, bitwise_*_shift on int8/int16/int32 tensors): ExecuTorch
lowers them to TOSA ARITHMETIC_RIGHT_SHIFT / LOGICAL_LEFT_SHIFT (int32, with casts around
narrower types on U55/U65), Vela to the Ethos-U SHR / SHL elementwise modes. Host NPU model vs
TOSA reference: bit-exact, or the recorded hardware departure below. The same int32 cases
with bitwise AND/OR/XOR/NOT, integer division and comparisons run on the U85 too (its AND, OR,
XOR, NOT, DIV and CMP_* modes).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from npu_model_cases_ew import CASES, HARDWARE_DEPARTS
from npu_model_support import (
    U55_U65_TARGETS,
    U85_TARGETS,
    check_case,
    compiled,
    needs_toolchain,
)

from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.tosa.partitions import product_partitions
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

SLICE = [("rshift_channels", "ethos-u55-32"), ("lshift_5", "ethos-u65-512"),
         # U85: bitwise AND, integer DIV (and the SHR before it)
         ("and_int32", "ethos-u85-128"), ("div_int32", "ethos-u85-128")]
SATURATION_TARGET = "ethos-u55-128"


def _case(case: str, target: str) -> Any:
    reason = HARDWARE_DEPARTS.get(case)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(f"npu_model_cases_ew:{case}", target, marks=marks)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "target"), SLICE)
def test_shift_slice_is_exact(case: str, target: str) -> None:
    check_case(f"npu_model_cases_ew:{case}", target)


@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target"),
                         [_case(case, target) for case in CASES
                          for target in (*U55_U65_TARGETS, *U85_TARGETS)])
def test_sweep_shifts(model: str, target: str) -> None:
    check_case(model, target)


@pytest.mark.slow
def test_narrowing_cast_saturates_where_tosa_wraps() -> None:
    """The recorded departure (SATURATING_CAST): the model gives the saturated int8 value
    exactly where TOSA's wrapped one leaves the int8 range, and TOSA's value elsewhere."""
    needs_toolchain()
    product = compiled("npu_model_cases_ew:lshift_int8", SATURATION_TARGET)
    (partition,) = product_partitions(product)
    (program,) = programs_in_pte(product.pte)
    values = np.arange(-128, 128, dtype=np.int8)
    x = np.resize(values, partition.inputs[0].shape).astype(np.int8)
    (raw,) = run_program(program, Npu.for_target_name(SATURATION_TARGET), [x])
    got = np.frombuffer(raw, dtype=np.int8).reshape(x.shape)
    (tosa,) = run_tosa_flatbuffer(partition.tosa, [x])
    wide = x.astype(np.int32) << 1
    assert np.array_equal(got, np.clip(wide, -128, 127))
    assert np.array_equal(tosa, wide.astype(np.int8))            # TOSA wraps
    assert np.array_equal(got != tosa, (wide < -128) | (wide > 127))
