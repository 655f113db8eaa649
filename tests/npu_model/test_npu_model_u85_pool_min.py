"""NPU_OP_POOL pooling_mode MIN on the Ethos-U85: ExecuTorch 1.4.1 lowers torch.amin to TOSA
REDUCE_MIN, which regor runs as a MIN pool (ethos_u85_register_cs_generator.cpp
GeneratePoolingOp: ReduceMin -> pooling_mode::MIN). Each case's compiled stream must write MIN
and be bit-exact against the TOSA reference model."""

from __future__ import annotations

import pytest
from npu_model_support import check_case, needs_toolchain, written_values

TARGET = "ethos-u85-128"
MIN = ("NPU_OP_POOL", "pooling_mode", "MIN")


def _pool_min_is_written_and_exact(model: str) -> None:
    needs_toolchain()
    assert MIN in written_values(model, TARGET), f"{model} compiles to no MIN pool on {TARGET}"
    check_case(model, TARGET)


@pytest.mark.slow
def test_amin_over_channels_is_a_min_pool_and_exact() -> None:
    _pool_min_is_written_and_exact("npu_model_cases_u85:reduce_amin_c")


@pytest.mark.slow
@pytest.mark.sweep
def test_sweep_amin_over_height_and_width_is_a_min_pool_and_exact() -> None:
    _pool_min_is_written_and_exact("npu_model_cases_u85:reduce_amin_hw")
