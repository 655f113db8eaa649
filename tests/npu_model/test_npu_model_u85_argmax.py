"""NPU_OP_POOL pooling_mode ARGMAX_X on the Ethos-U85: ExecuTorch 1.4.1 lowers torch.argmax of an
integer input (the index cast to int32) to TOSA ARGMAX, which regor keeps native on the U85,
reshaped so that the reduced axis is W (graphir_optimiser.cpp RewriteArgmax, GetPoolingMode).
The inputs are drawn from a narrow range so that ties occur (TOSA takes the first largest).
Each case's stream must write ARGMAX_X and be bit-exact against the TOSA reference model."""

from __future__ import annotations

import pytest
from npu_model_support import check_value_reached

TARGET = "ethos-u85-128"
ARGMAX_X = ("NPU_OP_POOL", "pooling_mode", "ARGMAX_X")


@pytest.mark.slow
def test_argmax_over_channels_is_an_argmax_pool_and_exact() -> None:
    check_value_reached("npu_model_cases_u85:argmax_c", TARGET, ARGMAX_X)


@pytest.mark.slow
@pytest.mark.sweep
def test_sweep_argmax_over_width_is_an_argmax_pool_and_exact() -> None:
    check_value_reached("npu_model_cases_u85:argmax_w", TARGET, ARGMAX_X)
