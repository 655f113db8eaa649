"""NPU_SET_OFM_PRECISION activation_reverse H, W and C on the Ethos-U85: ExecuTorch 1.4.1 lowers
torch.flip to TOSA REVERSE, which regor fuses into the operation's output (ToActivationReverse in
ethos_u85_register_cs_generator.cpp). Regor reshapes the tensor around the reversed axis first,
so a flip of the NCHW W axis is written as reverse C, of C as reverse H and of H as reverse W
(measured on the compiled streams). Each case's stream must write its value and be bit-exact
against the TOSA reference model."""

from __future__ import annotations

import pytest
from npu_model_support import check_value_reached

TARGET = "ethos-u85-128"

CASES = {
    "C": "npu_model_cases_u85:flip_w",
    "H": "npu_model_cases_u85:flip_c",
    "W": "npu_model_cases_u85:flip_h",
}


def _reverse_is_written_and_exact(value: str) -> None:
    reverse = ("NPU_SET_OFM_PRECISION", "activation_reverse", value)
    check_value_reached(CASES[value], TARGET, reverse)


@pytest.mark.slow
def test_flip_of_width_is_an_ofm_reversed_in_c_and_exact() -> None:
    _reverse_is_written_and_exact("C")


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize("value", ["H", "W"])
def test_sweep_flip_is_an_ofm_reversed_and_exact(value: str) -> None:
    _reverse_is_written_and_exact(value)
