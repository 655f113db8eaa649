"""Activations, LUTs and softmax on the NPU model vs the TOSA reference: every case of
npu_model_cases_activation with int8 and 16-bit activations (a16w8) on U55-32/64/128/256 and
U65-256/512, bit-exact; the full sweep behind the `sweep` marker, a slice by default.
"""

from __future__ import annotations

import numpy as np
import pytest
from npu_model_cases_activation import CASES
from npu_model_support import (
    U55_U65_TARGETS,
    check_case,
    compiled,
    needs_toolchain,
    verified,
)

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.npu_model.verify import ETHOSU_BACKEND
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

MODULE = "npu_model_cases_activation"
QUANTIZE = ("int8", "a16w8")
SLICE = [("lut_chain", "ethos-u55-32", "int8"), ("softmax_c", "ethos-u65-512", "a16w8"),
         ("log_softmax", "ethos-u55-256", "a16w8")]
# Streams Vela 5.1.0 gets wrong, refused by the model (see test_vela_lut_past_shram_is_refused).
VELA_LUT_PAST_SHRAM = {("conv_sigmoid", "ethos-u55-32", "int8"),
                       ("conv_sigmoid", "ethos-u55-64", "int8")}


def _param(case: str, target: str, quantize: str) -> object:
    marks = ([pytest.mark.xfail(raises=OrchestratorError, strict=True,
                                reason="Vela DMAs the LUT past the end of SHRAM")]
             if (case, target, quantize) in VELA_LUT_PAST_SHRAM else [])
    return pytest.param(case, target, quantize, marks=marks)


SWEEP = [_param(case, target, quantize) for quantize in QUANTIZE for case in CASES
         for target in U55_U65_TARGETS]


def _check(case: str, target: str, quantize: str) -> None:
    check_case(f"{MODULE}:{case}", target, quantize)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "target", "quantize"), SLICE)
def test_slice_is_exact(case: str, target: str, quantize: str) -> None:
    _check(case, target, quantize)


@pytest.mark.sweep
@pytest.mark.parametrize(("case", "target", "quantize"), SWEEP)
def test_sweep_activation(case: str, target: str, quantize: str) -> None:
    _check(case, target, quantize)


@pytest.mark.slow
def test_int16_lut_is_exact_for_every_int16_input() -> None:
    """All 65536 int16 inputs through sigmoid's 16-bit LUT (the interpolation and its rounding:
    TOSA TABLE then RESCALE 2^-7 rounded half up, which regor fuses into one LUT op)."""
    needs_toolchain()
    product = compiled(f"{MODULE}:sigmoid", "ethos-u55-128", "a16w8")
    [partition] = [p for p in product_partitions(product) if p.backend == ETHOSU_BACKEND]
    [program] = programs_in_pte(product.pte)
    shape = graph_interface(partition.tosa).inputs[0].shape
    count = int(np.prod(shape))
    every = np.arange(-32768, 32768, dtype=np.int16)
    differing = 0
    for start in range(0, every.size, count):
        chunk = np.resize(every[start:start + count], count).reshape(shape)
        [want] = run_tosa_flatbuffer(partition.tosa, [chunk])
        [raw] = run_program(program, Npu.for_target_name("ethos-u55-128"), [chunk])
        got = np.frombuffer(raw, dtype=want.dtype).reshape(want.shape)
        differing += int(np.count_nonzero(got != want))
    assert differing == 0


@pytest.mark.slow
def test_vela_lut_past_shram_is_refused() -> None:
    """Vela 5.1.0 fuses sigmoid's LUT into a transpose (AvgPool) and, on 16-bank U55s, DMAs the
    LUT to SHRAM offset 0x4000, past the 16 KiB (Vela prints "Address out of bounds" itself):
    regor ethos_u55_register_cs_generator.cpp:1468 asks for the transpose's block config with
    lutBytes 0, so ethos_u55.cpp:426 gives it no LUT banks (reservedEndBanks is 0 for 16 banks,
    ethos_u55.cpp:170). The hardware result is undefined: the model refuses the stream."""
    needs_toolchain()
    with pytest.raises(OrchestratorError, match="0x4000 length 256 ends beyond its 16 banks"):
        verified(f"{MODULE}:conv_sigmoid", "ethos-u55-32", "int8")
