"""The 16-bit sweep: single-op cases quantized a16w8 (int16 activations, int8 weights),
compiled by Vela for every U55/U65 configuration, run on the NPU model and on the TOSA
reference model with the same inputs: bit-exact, and every command decodes as Vela lists it.

Every npu_model_opcases case runs except those a16w8 cannot put on the NPU (below, with the
evidence), plus the 16-bit-specific cases of npu_model_cases_int16. Full sweep: -m sweep.
"""

from __future__ import annotations

import npu_model_cases_int16
import npu_model_opcases
import pytest
from npu_model_support import (
    U55_U65_TARGETS,
    check_case,
)

QUANTIZE = "a16w8"
# Cases a16w8 does not put on the NPU: nothing to compare (ExecuTorch 1.4.1 / Vela 5.1.0).
NOT_ON_NPU = {
    "relu6": "not delegated with a16w8 (manifest delegation: 'not delegated', 0 NPU ops)",
    "upsample_nearest": "not delegated with a16w8 (manifest delegation: 'not delegated')",
    "conv_transpose": "Vela fails the a16w8 compile: 'Non-passthrough operation (Conv2D) "
                      "could not run on NPU'",
}
SLICE = [("npu_model_cases_int16:sub_broadcast_c", "ethos-u55-32"),
         ("npu_model_opcases:dw_mult2", "ethos-u65-512")]


CASES16 = [("npu_model_opcases",
            case) for case in npu_model_opcases.CASES if case not in NOT_ON_NPU] + [
    ("npu_model_cases_int16", case) for case in npu_model_cases_int16.CASES]
SWEEP16 = [(f"{module}:{case}", target) for module, case in CASES16 for target in U55_U65_TARGETS]


def _check(model: str, target: str) -> None:
    check_case(model, target, QUANTIZE)


@pytest.mark.slow
@pytest.mark.parametrize(("model", "target"), SLICE)
def test_int16_slice_is_exact_and_decodes_as_vela_lists(model: str, target: str) -> None:
    _check(model, target)


@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target"), SWEEP16)
def test_sweep_int16(model: str, target: str) -> None:
    _check(model, target)
