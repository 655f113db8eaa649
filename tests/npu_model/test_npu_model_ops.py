"""Single-op sweep: each case compiled by Vela for every U55/U65 configuration, run on the host
NPU model and on the TOSA reference model with the same inputs: bit-exact, every element.

The full sweep is behind the `sweep` marker (python -m pytest -m sweep tests/npu_model); a
representative slice runs by default. Compiles are cached in scratch/ across sessions.
"""

from __future__ import annotations

import pytest
from npu_model_opcases import CASES
from npu_model_support import (
    U55_U65_TARGETS,
    check_case,
)

SLICE = [("npu_model_opcases:conv_k3", "ethos-u55-64"),
         ("npu_model_opcases:dw_k3_s2", "ethos-u65-512"),
         ("npu_model_opcases:add_broadcast_c", "ethos-u55-32"),
         ("npu_model_opcases:sigmoid", "ethos-u55-128"),
         # softmax over NCHW channels: an AvgPool transpose leaves a stale OFM STRIDE_C that
         # the hardware ignores for NHWC (regor ethos_u55_register_cs_generator.cpp:1360)
         ("npu_model_opcases:softmax", "ethos-u65-256"),
         # 2,359,296 weights in one CONV: decoded in two blocks of output channels
         ("npu_model_opcases:conv_c512_k3", "ethos-u55-128")]
# Known, unexplained differences: kept visible (strict xfail turns a fix into a failure).
NOT_EXACT_YET: dict[str, str] = {}


def _case(case: str, target: str) -> object:
    reason = NOT_EXACT_YET.get(case)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(f"npu_model_opcases:{case}", target, marks=marks)


SWEEP = [_case(case, target) for case in CASES for target in U55_U65_TARGETS]


@pytest.mark.slow
@pytest.mark.parametrize(("model", "target"), SLICE)
def test_slice_is_exact_and_decodes_as_vela_lists(model: str, target: str) -> None:
    check_case(model, target)


@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target"), SWEEP)
def test_sweep_int8(model: str, target: str) -> None:
    check_case(model, target)
