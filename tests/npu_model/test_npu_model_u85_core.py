"""The Ethos-U85 core on hand-built streams (npu_model_stream85: encoded from regor's own header):
every OFM round mode against regor's definition, every OFM transpose against numpy, operation
chaining, and one-line refusals. Real Vela streams of the same features are checked bit-exactly
by the U85 sweep (test_npu_model_u85.py) and `invoke verify`."""

from __future__ import annotations

import re

import numpy as np
import pytest
from npu_model_stream85 import (
    TRANSPOSES,
    Elementwise85,
    NullPool85,
    Resize85,
    Stream85,
    acc48_records,
    enum,
    run85,
    transposed_add,
)
from npu_model_support import assert_exact, check_case, compiled, needs_toolchain, verified
from npu_model_u85_block import BLOCKS
from test_npu_model_rounding import INT32_MAX, INT32_MIN, probe_values

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model import coverage
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.npu_model.listing import model_listing
from orchestrator.npu_model.observe import observe_program
from orchestrator.npu_model.verify import check_partition, input_sets, npu_delegates, verify_product
from orchestrator.tosa.graph import main_operators
from orchestrator.tosa.intermediates import run_with_intermediates

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
    stream.cmd0("NPU_OP_ELEMENTWISE", elementwise_mode=12)   # a value regor's header leaves out
    code, message = run85(stream, scratch)
    assert code != 0
    assert message == ("NPU_OP_ELEMENTWISE elementwise_mode value 12 on Ethos-U85-128 "
                       "(not modelled)")


@pytest.mark.parametrize(("mode", "expected"),
                         [("CMP_GE", [0, 0, -1, -1]), ("CMP_GT", [0, 0, 0, -1]),
                          ("CMP_EQ", [0, 0, -1, 0]), ("CMP_NE", [-1, -1, 0, -1])])
def test_a_comparison_gives_regors_internal_bool(mode: str, expected: list[int]) -> None:
    """True is every bit set, false 0 (regor graphir_optimiser.cpp converts a graph's bool
    output with AND 1 and builds SELECT from AND/AND_NOT/OR on it)."""
    scratch = np.zeros(8, dtype=np.int8)
    scratch[:4] = [-2, -1, 0, 3]
    op = Elementwise85(mode, (1, 1, 4), scalar=0, ofm_offset=4)
    code, message = run85(op.emit(Stream85()), scratch)
    assert code == 0, message
    assert scratch[4:].tolist() == expected


def test_a_kept_accumulator_outside_a_convolution_stops_naming_field_and_value() -> None:
    scratch = np.zeros(2048, dtype=np.int8)
    stream = Elementwise85("ADD", (1, 1, 4), scalar=1).emit(Stream85())
    stream.cmd0("NPU_SET_ACC_FORMAT", acc_format=enum("acc_format", "I32"),
                acc_output=enum("acc_output", "DISABLE"))
    stream.cmd0("NPU_OP_ELEMENTWISE", elementwise_mode=enum("elementwise_mode", "ADD"))
    code, message = run85(stream, scratch)
    assert code != 0
    assert message == ("NPU_OP_ELEMENTWISE NPU_SET_ACC_FORMAT acc_output value 1 on "
                       "Ethos-U85-128 (not modelled)")


@pytest.mark.slow
def test_a_kept_accumulator_cut_into_depth_slices_stops_as_undefined() -> None:
    """Vela 5.1.0 (and 5.2.0) splits a tap of Wav2Letter's 250-channel stem into 128 + 122
    channel commands (weight buffering) that keep accumulators in the same places of one OFM
    block: the 122-channel one resets places 0-121, where the first kept channels 0-121, and
    the next KEEP over 250 channels reads them as channels 0-121: undefined, so the model
    stops (em85_kept.c)."""
    needs_toolchain()
    model, target = "npu_model_cases_u85:conv1d_w2l_stem_250", "ethos-u85-128"
    product = compiled(model, target)
    with pytest.raises(OrchestratorError, match=re.escape(
            "NPU_OP_CONV NPU_SET_ACC_FORMAT acc_input KEEP with an OFM of 1x2x250 after a kept "
            "accumulator of 1x2x122 on Ethos-U85-128 (undefined: the NPU keeps one OFM block by "
            "place)")):
        verify_product(product, Npu.for_target_name(target), model, target)


def _kept_conv_depths(program_cmd_data: bytes) -> list[tuple[int, int]]:
    """(acc_input, OFM depth) of every CONV that keeps or continues an accumulator (ACC_FORMAT
    acc_input KEEP or acc_output DISABLE), from the model's decoder listing."""
    registers: dict[str, int] = {}
    kept: list[tuple[int, int]] = []
    for _offset, name, param, _payload in model_listing(program_cmd_data):
        registers[name] = param
        acc = registers.get("NPU_SET_ACC_FORMAT", 0)
        acc_input, acc_output = (acc >> 4) & 3, (acc >> 6) & 1
        if name == "NPU_OP_CONV" and (acc_input == 1 or acc_output == 1):
            kept.append((acc_input, registers["NPU_SET_OFM_DEPTH_M1"] + 1))
    return kept


@pytest.mark.slow
def test_the_stems_kept_chain_is_exact_when_vela_does_not_cut_its_depth() -> None:
    """With the weights in SRAM (memory mode Sram_Only) Vela buffers no weights, so no depth
    slices: each of the 250-channel stem's taps is one 1x2x250 CONV, the first resetting, the
    others keeping the accumulators of one OFM block. Exact against the TOSA reference."""
    needs_toolchain()
    model, target = "npu_model_cases_u85:conv1d_w2l_stem_250", "ethos-u85-128"
    product = compiled(model, target, memory_mode="Sram_Only")
    [(_partition, program)] = npu_delegates(product, model, target)
    kept = _kept_conv_depths(program.cmd_data)
    assert len(kept) > 200 and {depth for _input, depth in kept} == {250}
    assert [acc_input for acc_input, _depth in kept].count(1) == len(kept) - 1
    report = verify_product(product, Npu.for_target_name(target), model, target)
    assert report.exact, [check.to_json() for check in report.checks if not check.exact]


def _branch(stream: Stream85, cond: str, target_word: int = 0) -> int:
    """An NPU_OP_BRANCH to byte 4 * `target_word` of the stream; returns its word position."""
    at = len(stream.words)
    stream.cmd1("NPU_OP_BRANCH", branch_cond=enum("branch_cond", cond),
                branch_target=4 * target_word)
    return at


def _retarget(stream: Stream85, at: int, target_word: int) -> None:
    stream.words[at + 1] = 4 * target_word


def if_stream(shape: tuple[int, int, int] = (1, 1, 1)) -> Stream85:
    """An IF as regor lays it out (high_level_command_stream_generator.cpp:385-444; branch
    commands ethos_u85_register_cs_generator.cpp:2190-2208): the condition is the OFM of an
    ADD 0 of the IFM at byte 0 (`shape`, into byte 1024), then BRANCH RF_TRUE to THEN, BRANCH
    ALWAYS to ELSE; THEN adds 10 to byte 0 into byte 2048, ELSE adds 20; each ends with BRANCH
    ALWAYS to EXIT."""
    stream = Elementwise85("ADD", shape, scalar=0).emit(Stream85())
    stream.cmd0("NPU_OP_KERNEL_WAIT", n=0)
    to_then, to_else = _branch(stream, "RF_TRUE"), _branch(stream, "ALWAYS")
    _retarget(stream, to_then, len(stream.words))
    Elementwise85("ADD", (1, 1, 1), scalar=10, ofm_offset=2048).emit(stream)
    then_exit = _branch(stream, "ALWAYS")
    _retarget(stream, to_else, len(stream.words))
    Elementwise85("ADD", (1, 1, 1), scalar=20, ofm_offset=2048).emit(stream)
    else_exit = _branch(stream, "ALWAYS")
    for at in (then_exit, else_exit):
        _retarget(stream, at, len(stream.words))
    return stream


@pytest.mark.parametrize("value", [1, -1, 2, 0, 101, -100])
def test_hand_built_stream_branch_rf_true_tests_bit_0_of_a_one_element_ofm(value: int) -> None:
    """RF_TRUE jumps when COND_STATUS result_flag is 1: "for OFM with a single element, this is
    bit 0 of the value" (ethos-u-core-driver ethosu85_interface.h cond_status_r); branch_target
    is a byte offset in the stream (regor writes 4 * the target's word position,
    ethos_u85_register_cs_generator.cpp:2276-2285). Only THEN or ELSE runs."""
    scratch = np.zeros(4096, dtype=np.int8)
    scratch[0] = value
    code, message = run85(if_stream(), scratch)
    assert code == 0, message
    assert scratch[1024] == value
    assert scratch[2048] == value + (10 if value & 1 else 20)


def test_hand_built_stream_branch_on_a_larger_ofm_stops_as_unpredictable() -> None:
    """result_flag is UNPREDICTABLE unless the OFM has a single element: the model stops."""
    code, message = run85(if_stream((1, 1, 2)), np.zeros(4096, dtype=np.int8))
    assert code != 0
    assert re.fullmatch(r"NPU_OP_BRANCH branch_cond RF_TRUE at word \d+: its condition, the OFM "
                        r"of NPU_OP_ELEMENTWISE, has 2 elements, which leaves COND_STATUS "
                        r"UNPREDICTABLE \(one element defines it\)", message), message
    assert coverage.place_stop(85, message) == ""   # no register value of the table


def test_hand_built_stream_branch_with_no_condition_or_outside_the_stream_stops() -> None:
    stream = Stream85()
    _branch(stream, "RF_TRUE")
    code, message = run85(stream, np.zeros(64, dtype=np.int8))
    assert (code != 0, message) == (True, "NPU_OP_BRANCH branch_cond RF_TRUE at word 0: no "
                                          "operation wrote COND_STATUS before it")
    stream = Stream85()
    _branch(stream, "ALWAYS", 100)
    code, message = run85(stream, np.zeros(64, dtype=np.int8))
    assert (code != 0, message) == (True, "NPU_OP_BRANCH at word 0 targets byte 400, not a "
                                          "command of the 3-word stream")


@pytest.mark.slow
@pytest.mark.sweep
def test_sweep_a_torch_cond_compiles_to_branches_and_is_exact_on_both_predicates() -> None:
    """ExecuTorch 1.4.1 delegates a torch.cond to U85 (its branches quantized as its Arm
    quantizer does, orchestrator/aot/lower/lowering.py); Vela writes the condition as a
    one-element CMP_GT and NPU_OP_BRANCH RF_TRUE/ALWAYS. Bit-exact against the TOSA reference
    on the model's and random inputs, and on inputs whose sum is positive (THEN: x + 1) and
    negative (ELSE: x - 1)."""
    needs_toolchain()
    model, target = "npu_model_cases_u85:torch_cond", "ethos-u85-128"
    assert_exact(verified(model, target))
    product = compiled(model, target)
    [(partition, program)] = npu_delegates(product, model, target)
    listing = [name for _offset, name, _param, _data in model_listing(program.cmd_data)]
    assert listing.count("NPU_OP_BRANCH") == 4
    npu = Npu.for_target_name(target)
    quantization = product.manifest["partitions"][0]["inputs"][0]["quantization"]
    scale, zero_point = quantization["scale"], quantization["zero_point"]
    for label, values in (("positive", [0, 10, -20, 30]), ("negative", [100, -128, -128, -128])):
        inputs = [np.array(values, dtype=np.int8).reshape(1, 1, 2, 2)]
        checks = check_partition(0, partition.tosa, program, npu, inputs, label, {})
        assert all(check.exact for check in checks), [c.to_json() for c in checks]
        # the branch that ran: the output lies nearer the float result of the taken branch
        # (THEN x + 1 for a positive sum, ELSE x - 1) than of the other
        real = (np.array(values) - zero_point) * scale
        taken, other = [np.clip(np.round((real + step) / scale) + zero_point, -128, 127)
                       for step in ((1.0, -1.0) if real.sum() > 0 else (-1.0, 1.0))]
        [raw] = run_program(program, npu, inputs)
        got = np.frombuffer(raw, dtype=np.int8).astype(int)
        assert np.abs(got - taken).sum() < np.abs(got - other).sum(), (label, got, taken, other)


@pytest.mark.slow
@pytest.mark.sweep
def test_sweep_a_while_loop_compiles_to_a_backward_branch_and_is_exact() -> None:
    """A torch while_loop (upstream's DecreasingOutput, threshold 1) delegated to U85: Vela
    writes COND, BRANCH RF_TRUE to BODY, ALWAYS to EXIT, and BODY ends with a branch back to
    COND (high_level_command_stream_generator.cpp:446-556). Exact against the TOSA reference
    on the model's and random inputs, on an input that loops four times (sum 12 halved to
    below 1) and on one that never enters the body."""
    needs_toolchain()
    model, target = "npu_model_cases_u85:while_halving", "ethos-u85-128"
    assert_exact(verified(model, target))
    product = compiled(model, target)
    [(partition, program)] = npu_delegates(product, model, target)
    branches = [(offset, data) for offset, name, _param, data in model_listing(program.cmd_data)
                if name == "NPU_OP_BRANCH"]
    assert any(data is not None and data < offset for offset, data in branches), branches
    npu = Npu.for_target_name(target)
    for label, fill in (("loops", 127), ("never", -128)):
        inputs = [np.full((1, 1, 2, 2), fill, dtype=np.int8)]
        checks = check_partition(0, partition.tosa, program, npu, inputs, label, {})
        assert all(check.exact for check in checks), [c.to_json() for c in checks]
        [raw] = run_program(program, npu, inputs)
        assert (np.frombuffer(raw, dtype=np.int8) != fill).any() == (label == "loops")


@pytest.mark.slow
@pytest.mark.parametrize(("model", "target"), [("npu_model_cases_u85:matmul", "ethos-u85-128")])
def test_a_matmul_with_weights_from_ifm2_is_exact(model: str, target: str) -> None:
    """A real Vela stream of NPU_OP_CONV weights_ifm2 (a MatMul, regor GenerateConvolutionOp
    "Dynamic weights"), decoded as Vela lists it and bit-exact against the TOSA reference."""
    check_case(model, target, "int8")


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize("quantize", ["int8", "a16w8"])
@pytest.mark.parametrize("block", BLOCKS)
def test_a_transformer_block_is_exact(block: str, quantize: str) -> None:
    """A pre-LayerNorm encoder block (npu_model_u85_block: attention with packed or separate q/k/v,
    softmax over keys or queries, LayerNorm, GELU MLP) on U85-128: chaining, transposes,
    MatMul, LUTs and a16w8's 48-bit accumulators in one stream."""
    check_case(f"npu_model_u85_block:{block}", "ethos-u85-128", quantize)


# --- B64 feature maps: the 48-bit accumulator of an a16w8 transposed convolution ---------------

INT16_MIN, INT16_MAX = -(1 << 15), (1 << 15) - 1
INT48_MIN, INT48_MAX = -(1 << 47), (1 << 47) - 1
B64_VALUES = np.array([INT48_MIN, INT48_MAX, -1, 0, 1, -(1 << 40) + 3, (1 << 33) + 5, -(1 << 31),
                       123456789012, -98765432109, 22222, -7], dtype=np.int64)
ACC48_RECORDS = [(0, 22744, 24), (-12345, 32767, 40), (7, 1, 1), (0, 16384, 47)]


def null_pool_b64(values: np.ndarray, records: list[tuple[int, int, int]],  # type: ignore[type-arg]
                  **fields: object) -> tuple[int, str, np.ndarray]:  # type: ignore[type-arg]
    """Runs NullPool85 on `values` (height, width, depth, int64) as a B64 IFM2 and returns
    (code, message, the int16 OFM)."""
    shape = values.shape
    scratch = np.zeros(1024 + 2 * values.size, dtype=np.uint8)
    scratch[:values.nbytes] = values.astype("<i8").view(np.uint8).reshape(-1)
    op = NullPool85(shape, **fields)  # type: ignore[arg-type]
    code, message = run85(op.emit(Stream85()), scratch, acc48_records(records))
    return code, message, scratch[1024:].view("<i2").reshape(shape)


def test_a_b64_accumulator_input_is_rescaled_per_channel_as_regor_defines() -> None:
    """A NONE pool loading a B64 IFM2 into the I48 accumulator (regor GenerateAccFormat,
    ethos_u85_register_cs_generator.cpp:1511-1525: UseNullPool takes Acc48 for an input wider than
    32 bits; ToActivationPrecision :216-233 types int48 and int64 both B64, graphir_optimiser.cpp
    :71-90 stores int48 as int64), values over the whole int48 range, sign-extended: each Acc48
    record (ethos_u85_weight_encoder.cpp:112-129) adds its bias, scales and shifts in the OFM
    round mode (NATURAL: + 2^(shift-1), graphir_optimiser.cpp Scale()), then the OFM saturates
    to int16. This is TOSA RESCALE of an i48 input (apply_scale_16, whose 16-bit multiplier is
    the record's 15-bit scale) wherever TOSA's result is defined; where TOSA's REQUIRE (scaled
    value within int32) fails TOSA is unpredictable and the model saturates as for every OFM."""
    values = B64_VALUES.reshape(1, 3, 4)
    code, message, got = null_pool_b64(values, ACC48_RECORDS)
    assert code == 0, message
    want = np.empty_like(got)
    for index, value in np.ndenumerate(values):
        bias, scale, shift = ACC48_RECORDS[index[2]]
        scaled = ((int(value) + bias) * scale + (1 << (shift - 1))) >> shift
        want[index] = min(max(scaled, INT16_MIN), INT16_MAX)
    assert np.array_equal(got, want)
    assert np.any((got > INT16_MIN) & (got < INT16_MAX))  # not only saturated values


@pytest.mark.parametrize(("value", "fields", "message"), [
    (INT48_MAX + 1, {}, "NPU_OP_POOL acc_input IFM2: a 48-bit accumulator value out of range "
                        "(overflow not modelled)"),
    (INT48_MIN - 1, {}, "NPU_OP_POOL acc_input IFM2: a 48-bit accumulator value out of range "
                        "(overflow not modelled)"),
    (INT48_MAX - 3, {}, "NPU_OP_POOL acc_input IFM2 plus bias: a 48-bit accumulator value out of "
                        "range (overflow not modelled)"),
    (0, {"acc_format": "I32"}, "NPU_OP_POOL NPU_SET_ACC_FORMAT acc_format value 0 with a 64-bit "
                               "IFM2 accumulator input on Ethos-U85-128 (not modelled)"),
    (0, {"ifm2_zero_point": 5}, "NPU_OP_POOL NPU_SET_IFM2_ZERO_POINT value 5 with B64 on "
                                "Ethos-U85-128 (not modelled)"),
    (0, {"ifm2": "U64"}, "NPU_OP_POOL NPU_SET_IFM2_PRECISION activation_type UNSIGNED with "
                         "activation_precision value 3 on Ethos-U85-128 (not modelled)"),
])
def test_what_the_b64_path_does_not_model_stops_naming_it(value: int, fields: dict[str, object],
                                                          message: str) -> None:
    """Upper 16 bits of a B64 value outside int48 (truncated or saturated: regor does not say),
    a value whose record's bias (7 on channel 2) takes it past int48, a B64 input into an I32
    accumulator (regor pairs B64 with Acc48 only), a zero point on a B64 map (TOSA's int48 has
    none) and an unsigned B64 are refused, one line each."""
    code, got, _ = null_pool_b64(np.full((1, 1, 4), value, dtype=np.int64), ACC48_RECORDS[:4],
                                 **fields)
    assert code != 0
    assert got == message


def test_a_b64_ofm_outside_the_operations_that_model_it_stops_naming_it() -> None:
    scratch = np.zeros(2048, dtype=np.int8)
    code, message = run85(Elementwise85("ADD", (1, 1, 4), ofm="S64").emit(Stream85()), scratch)
    assert code != 0
    assert message == ("NPU_OP_ELEMENTWISE NPU_SET_OFM_PRECISION activation_precision value 3 "
                       "(B64) on Ethos-U85-128 (not modelled)")


# --- a bilinear RESIZE's int48 result as an NHCWB16 B64 map, rescaled by a NONE pool ----------

RESIZE_SHAPE = (3, 5, 20)            # 20 channels: a full brick of 16 and a partial one
RESIZE_OFM = (6, 10, 20)             # the 2x upscale of Resize85
RESIZE_B64_OFFSET = 1024
RESIZE_POOL_OFFSET = RESIZE_B64_OFFSET + 6 * 10 * 32 * 8


def tosa_bilinear(source: np.ndarray, n: int, d: int,  # type: ignore[type-arg]
                  offset: int) -> np.ndarray:  # type: ignore[type-arg]
    """TOSA RESIZE BILINEAR's integer result (scale n/d and `offset` on both axes, no border):
    output o samples o * d + offset in 1/n units, the neighbours clamped to the IFM, weighted by
    (n - f) and f per axis; the sum is TOSA's int48 value (scaled by n * n)."""
    def axis(count: int, extent: int) -> list[tuple[int, int, int]]:
        samples = []
        for o in range(count):
            index, fraction = divmod(o * d + offset, n)
            samples.append((min(max(index, 0), extent - 1), min(max(index + 1, 0), extent - 1),
                            fraction))
        return samples
    height, width, depth = source.shape
    wide = source.astype(np.int64)
    out = np.empty((2 * height, 2 * width, depth), dtype=np.int64)
    for oy, (y0, y1, fy) in enumerate(axis(2 * height, height)):
        for ox, (x0, x1, fx) in enumerate(axis(2 * width, width)):
            out[oy, ox] = (wide[y0, x0] * (n - fy) * (n - fx) + wide[y0, x1] * (n - fy) * fx
                           + wide[y1, x0] * fy * (n - fx) + wide[y1, x1] * fy * fx)
    return out


def read_nhcwb16_b64(data: np.ndarray,  # type: ignore[type-arg]
                     shape: tuple[int, int, int]) -> np.ndarray:  # type: ignore[type-arg]
    """An NHCWB16 int64 map as regor lays it out (GetStrides): per row, one W x 16 brick run per
    16 channels."""
    height, width, depth = shape
    bricks = -(-depth // 16)
    values = data[:height * bricks * width * 16 * 8].view("<i8")
    return values.reshape(height, bricks, width, 16).transpose(0, 2, 1, 3).reshape(
        height, width, bricks * 16)[..., :depth]


def resize_into_b64(pool: bool) -> tuple[int, str, np.ndarray, np.ndarray]:  # type: ignore[type-arg]
    """An int16 bilinear RESIZE into an NHCWB16 B64 OFM (what Vela programs for a16w8
    upsample_bilinear_9x7: ACC_FORMAT I48, OFM_SCALE scale 1 shift 16), then with `pool` the
    NONE pool that reads that map as its IFM2 and rescales it into int16 NHWC:
    (code, message, the source, the scratch)."""
    source = np.linspace(-(1 << 15), (1 << 15) - 1, num=int(np.prod(RESIZE_SHAPE))).astype(
        np.int16).reshape(RESIZE_SHAPE)
    scratch = np.zeros(RESIZE_POOL_OFFSET + 2 * int(np.prod(RESIZE_OFM)), dtype=np.uint8)
    scratch[:source.nbytes] = source.astype("<i2").view(np.uint8).reshape(-1)
    stream = Resize85(RESIZE_SHAPE, mode="BILINEAR", ifm="S16", ofm="S64", ofm_format="NHCWB16",
                      acc_format="I48", ofm_offset=RESIZE_B64_OFFSET).emit(Stream85())
    records = [ACC48_RECORDS[c % len(ACC48_RECORDS)] for c in range(RESIZE_SHAPE[2])]
    if pool:
        NullPool85(RESIZE_OFM, ifm2_offset=RESIZE_B64_OFFSET, ifm2_format="NHCWB16",
                   ofm_offset=RESIZE_POOL_OFFSET).emit(stream)
    code, message = run85(stream, scratch, acc48_records(records))
    return code, message, source, scratch


def test_a_bilinear_resize_writes_tosas_int48_result_as_an_nhcwb16_b64_map() -> None:
    """Regor keeps an int16 bilinear RESIZE's int48 result (TOSA out_t int48) as a B64 map
    (graphir_optimiser.cpp:71-90) and may store it NHCWB16: bricks of 16 channels of 8 bytes
    (high_level_command_stream_generator.cpp:49-56). OFM_SCALE shift 16 removes the hardware's
    16 fraction bits exactly (ethos_u85_register_cs_generator.cpp:1902-1904), so every element,
    the partial second brick included, is TOSA's sum, over the whole int16 input range."""
    code, message, source, scratch = resize_into_b64(pool=False)
    assert code == 0, message
    got = read_nhcwb16_b64(scratch[RESIZE_B64_OFFSET:], RESIZE_OFM)
    want = tosa_bilinear(source, 4, 2, -1)
    assert np.array_equal(got, want)
    assert want.min() == -(1 << 15) * 16 and want.max() == ((1 << 15) - 1) * 16
    # the padding channels 20..31 of the second brick are not written
    padding = scratch[RESIZE_B64_OFFSET:RESIZE_POOL_OFFSET].view("<i8").reshape(6, 2, 10, 16)
    assert not padding[:, 1, :, 4:].any()


def test_a_none_pool_rescales_the_nhcwb16_b64_map_a_resize_wrote() -> None:
    """The second command of Vela's a16w8 bilinear: a NONE pool loads the NHCWB16 B64 map as
    its IFM2 into the I48 accumulator and rescales each channel with its Acc48 record (bias,
    scale, NATURAL round) into int16, saturating."""
    code, message, source, scratch = resize_into_b64(pool=True)
    assert code == 0, message
    got = scratch[RESIZE_POOL_OFFSET:].view("<i2").reshape(RESIZE_OFM)
    want = np.empty_like(got)
    for index, value in np.ndenumerate(tosa_bilinear(source, 4, 2, -1)):
        bias, scale, shift = ACC48_RECORDS[index[2] % len(ACC48_RECORDS)]
        scaled = ((int(value) + bias) * scale + (1 << (shift - 1))) >> shift
        want[index] = min(max(scaled, INT16_MIN), INT16_MAX)
    assert np.array_equal(got, want)
    assert np.any((got > INT16_MIN) & (got < INT16_MAX) & (got != 0))


@pytest.mark.parametrize(("op", "message"), [
    (Resize85((1, 1, 4), mode="NEAREST", ifm="S16", ofm="S64", acc_format="I48"),
     "NPU_OP_RESIZE NPU_SET_OFM_PRECISION activation_precision value 3 (B64) on Ethos-U85-128 "
     "(not modelled)"),
    (Resize85((1, 1, 4), mode="BILINEAR", ifm="S16", ofm="S64", acc_format="I32"),
     "NPU_OP_RESIZE NPU_SET_ACC_FORMAT acc_format value 0 with a B64 OFM on Ethos-U85-128 "
     "(not modelled)"),
])
def test_a_b64_resize_regor_never_writes_stops_naming_it(op: Resize85, message: str) -> None:
    """A NEAREST resize keeps the input type in TOSA (no int48 result to store) and regor picks
    Acc48 for an OFM wider than 32 bits (ethos_u85.cpp:938-943): both are refused, one line."""
    code, got = run85(op.emit(Stream85()), np.zeros(2048, dtype=np.uint8))
    assert code != 0
    assert got == message


def tosa_constant(tosa: bytes, name: str) -> np.ndarray:  # type: ignore[type-arg]
    """The values of constant tensor `name` of a TOSA flatbuffer (int48 widened to int64)."""
    from tosa.DType import DType
    from tosa.TosaGraph import TosaGraph

    block = TosaGraph.GetRootAs(tosa, 0).Regions(0).Blocks(0)
    [tensor] = [block.Tensors(i) for i in range(block.TensorsLength())
                if block.Tensors(i).Name().decode() == name]
    shape = tuple(int(d) for d in tensor.ShapeAsNumpy())
    count, raw = int(np.prod(shape)), tensor.DataAsNumpy().tobytes()
    if tensor.Type() == DType.INT48:
        return np.array([int.from_bytes(raw[6 * k:6 * k + 6], "little", signed=True)
                         for k in range(count)], dtype=np.int64).reshape(shape)
    dtype = {DType.INT8: "<i1", DType.INT16: "<i2"}[tensor.Type()]
    return np.frombuffer(raw, dtype, count).astype(np.int64).reshape(shape)


def transpose_conv_accumulators(tosa: bytes, reference: dict[str, np.ndarray]  # type: ignore[type-arg]
                                ) -> np.ndarray:  # type: ignore[type-arg]
    """TOSA TRANSPOSE_CONV2D's int48 output (kernel 2, stride 2, no padding: input (y, x) and
    tap (ky, kx) land on output (2y + ky, 2x + kx)) from its input in `reference` and its
    constant weights, bias and zero points."""
    [op] = [op for op in main_operators(tosa) if op.op == "TRANSPOSE_CONV2D"]
    source, weights, bias, input_zp, weight_zp = op.inputs
    x = reference[source][0].astype(np.int64) - tosa_constant(tosa, input_zp)[0]
    w = tosa_constant(tosa, weights) - tosa_constant(tosa, weight_zp)[0]
    height, width, _ = x.shape
    taps = np.einsum("yxi,okli->ykxlo", x, w)
    return taps.reshape(2 * height, 2 * width, -1) + tosa_constant(tosa, bias)


@pytest.mark.slow
def test_a16w8_transposed_convolution_writes_its_int48_accumulators_as_b64() -> None:
    """The real Vela stream of a stride-2 ConvTranspose2d in a16w8 on U85-128: regor splits the
    TOSA TRANSPOSE_CONV2D into one 1x1 CONV per stride phase (scheduler_decompose.cpp:1530-1690,
    DecomposeTransposeConv2DLargeStride, phases in (oy, ox) order, each writing every second OFM
    row and column), and each CONV writes its accumulator unscaled into the int48 tensor as
    64-bit elements (B64). Read back after each CONV, they are TOSA's int48 output, sign
    extended (computed here from the graph's constants: the TOSA reference model returns an
    int48 tensor as an empty array); the NONE pool that rescales the tensor makes the delegate's
    output, which the U85 sweep checks bit-exactly."""
    needs_toolchain()
    product = compiled("npu_model_opcases:conv_transpose", "ethos-u85-128", "a16w8")
    npu = Npu.for_target_name("ethos-u85-128")
    [(partition, program)] = npu_delegates(product, "npu_model_opcases:conv_transpose",
                                           "ethos-u85-128")
    inputs = input_sets(product, partition)[-1][1]
    accumulators = transpose_conv_accumulators(partition.tosa,
                                               run_with_intermediates(partition.tosa, inputs))
    convs = [op for op in observe_program(program, npu, inputs).operations
             if op.name == "NPU_OP_CONV"]
    assert len(convs) == 4
    for (oy, ox), op in zip([(0, 0), (0, 1), (1, 0), (1, 1)], convs, strict=True):
        assert op.ofm is not None and op.ofm.shape[3] == 8
        got = np.ascontiguousarray(op.ofm).view("<i8").reshape(op.ofm.shape[:3])
        assert np.array_equal(got, accumulators[oy::2, ox::2, :]), (oy, ox)
    assert accumulators.min() < 0 < accumulators.max()
