"""The Ethos-U85 core on hand-built streams (vnpu_stream85: encoded from regor's own header):
every OFM round mode against regor's definition, every OFM transpose against numpy, operation
chaining, and one-line refusals. Real Vela streams of the same features are checked bit-exactly
by the U85 sweep (test_vnpu_u85.py) and `invoke verify`."""

from __future__ import annotations

import numpy as np
import pytest
from test_vnpu_rounding import INT32_MAX, INT32_MIN, probe_values
from vnpu_stream85 import TRANSPOSES, Elementwise85, Stream85, enum, run85, transposed_add
from vnpu_support import check_case
from vnpu_u85_block import BLOCKS

ROUND_MODES = ("DOUBLE_SYMMETRIC", "NATURAL", "DOUBLE_ASYMMETRIC", "SYMMETRIC",
               "TRUNCATE_TO_ZERO", "TRUNCATE_TO_LOWER")
SHIFTS = (1, 7, 16, 30, 31, 32, 33, 40, 48)
SCALES = (1, 3, 1 << 30, 1234567891, (1 << 31) - 1)


def regor_scale(value: int, scale: int, shift: int, mode: str) -> int:
    """regor compiler/graphir_optimiser.cpp Scale() (lines 420-460), the only definition of the
    six OFM modes (ethos_u85_interface.hpp round_mode_ofm, lines 941-949; the register
    generator maps RoundMode to them in GetOfmRoundingMode): natural round 2^(shift-1), D =
    2^30 when shift > 31, then per mode; int32 saturation of the OFM."""
    round_value = 1 << (shift - 1)
    double = (1 << 30) if shift > 31 else 0
    if mode == "SYMMETRIC":
        round_value -= 1 if value < 0 else 0
    elif mode == "TRUNCATE_TO_ZERO":
        round_value = 0 if value >= 0 else (1 << shift) - 1
    elif mode == "TRUNCATE_TO_LOWER":
        round_value = 0
    elif mode == "DOUBLE_SYMMETRIC":
        round_value += double if value >= 0 else -double
    elif mode == "DOUBLE_ASYMMETRIC":
        round_value += double
    return min(max((value * scale + round_value) >> shift, INT32_MIN), INT32_MAX)


def times_one(values: list[int], scale: int, shift: int, mode: str) -> list[int]:
    """OFM = IFM * scalar 1, int32 in and out, scaled by OFM_SCALE in `mode`."""
    count = len(values)
    scratch = np.zeros(2 * count, dtype=np.int32)
    scratch[:count] = values
    op = Elementwise85("MUL", (1, 1, count), ifm="S32", ofm="S32", scalar=1, scale=scale,
                       shift=shift, round_mode=mode, ofm_offset=4 * count)
    code, message = run85(op.emit(Stream85()), scratch)
    assert code == 0, message
    return [int(v) for v in scratch[count:]]


@pytest.mark.parametrize("mode", ROUND_MODES)
def test_every_ofm_round_mode_is_regors_scale(mode: str) -> None:
    for scale in SCALES:
        for shift in SHIFTS:
            values = probe_values(shift, scale)
            want = [regor_scale(v, scale, shift, mode) for v in values]
            assert times_one(values, scale, shift, mode) == want, (mode, scale, shift)


@pytest.mark.parametrize("transpose", sorted(TRANSPOSES))
def test_ofm_transposes_store_the_permuted_tensor(transpose: str) -> None:
    stream, scratch, stored = transposed_add(transpose)
    code, message = run85(stream, scratch)
    assert code == 0, message
    assert np.array_equal(scratch[1024:].reshape(stored.shape), stored)


def test_a_chained_ofm_feeds_the_next_operation() -> None:
    """ADD 5 into chain buffer 0 (int32), then MUL by 2 reading it: (x + 5) * 2 in memory; the
    chained feature maps have no BASE/STRIDE registers (regor GenerateIFM/GenerateOFM)."""
    shape = (2, 2, 3)
    source = np.arange(-6, 6, dtype=np.int8).reshape(shape)
    scratch = np.zeros(1024 + 4 * source.size, dtype=np.int8)
    scratch[:source.size] = source.reshape(-1)
    stream = Elementwise85("ADD", shape, ofm="S32", scalar=5,
                           ofm_storage="CHAINED").emit(Stream85())
    Elementwise85("MUL", shape, ifm="S32", ofm="S32", scalar=2, ifm_storage="CHAINED").emit(stream)
    code, message = run85(stream, scratch)
    assert code == 0, message
    got = scratch[1024:].view(np.int32).reshape(shape)
    assert np.array_equal(got, (source.astype(np.int32) + 5) * 2)


def test_a_chained_ifm_nothing_wrote_is_refused() -> None:
    scratch = np.zeros(2048, dtype=np.int8)
    stream = Elementwise85("MUL", (1, 1, 4), ifm="S32", ofm="S32", scalar=2,
                           ifm_storage="CHAINED").emit(Stream85())
    code, message = run85(stream, scratch)
    assert code != 0
    assert message == "chained IFM reads chain buffer 0 that no operation wrote"


def test_an_unmodelled_elementwise_mode_names_command_field_value_and_target() -> None:
    scratch = np.zeros(2048, dtype=np.int8)
    stream = Elementwise85("ADD", (1, 1, 4), scalar=1).emit(Stream85())
    stream.cmd0("NPU_OP_ELEMENTWISE", elementwise_mode=enum("elementwise_mode", "CLZ"))
    code, message = run85(stream, scratch)
    assert code != 0
    assert message == ("NPU_OP_ELEMENTWISE elementwise_mode value 7 on Ethos-U85-128 "
                       "(not modelled)")


def test_a_branch_stops_naming_it() -> None:
    scratch = np.zeros(64, dtype=np.int8)
    stream = Stream85().cmd1("NPU_OP_BRANCH")
    code, message = run85(stream, scratch)
    assert code != 0
    assert message == "command NPU_OP_BRANCH at word 0 on Ethos-U85 (not modelled)"


@pytest.mark.slow
@pytest.mark.parametrize(("model", "target"), [("vnpu_cases_u85:matmul", "ethos-u85-128")])
def test_a_matmul_with_weights_from_ifm2_is_exact(model: str, target: str) -> None:
    """A real Vela stream of NPU_OP_CONV weights_ifm2 (a MatMul, regor GenerateConvolutionOp
    "Dynamic weights"), decoded as Vela lists it and bit-exact against the TOSA reference."""
    check_case(model, target, "int8")


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize("quantize", ["int8", "a16w8"])
@pytest.mark.parametrize("block", BLOCKS)
def test_a_transformer_block_is_exact(block: str, quantize: str) -> None:
    """A pre-LayerNorm encoder block (vnpu_u85_block: attention with packed or separate q/k/v,
    softmax over keys or queries, LayerNorm, GELU MLP) on U85-128: chaining, transposes,
    MatMul, LUTs and a16w8's 48-bit accumulators in one stream."""
    check_case(f"vnpu_u85_block:{block}", "ethos-u85-128", quantize)
