"""NPU_OP_POOL pooling_mode MIN on the Ethos-U85: ExecuTorch 1.4.1 lowers torch.amin to TOSA
REDUCE_MIN, which regor runs as a MIN pool (ethos_u85_register_cs_generator.cpp
GeneratePoolingOp: ReduceMin -> pooling_mode::MIN). Each case's compiled stream must write MIN
and be bit-exact against the TOSA reference model."""

from __future__ import annotations

import pytest
from npu_model_support import check_value_reached

TARGET = "ethos-u85-128"
MIN = ("NPU_OP_POOL", "pooling_mode", "MIN")


@pytest.mark.slow
def test_amin_over_channels_is_a_min_pool_and_exact() -> None:
    check_value_reached("npu_model_cases_u85:reduce_amin_c", TARGET, MIN)


@pytest.mark.slow
@pytest.mark.sweep
def test_sweep_amin_over_height_and_width_is_a_min_pool_and_exact() -> None:
    check_value_reached("npu_model_cases_u85:reduce_amin_hw", TARGET, MIN)
