"""The Ethos-U85 elementwise modes no ExecuTorch 1.4.1 lowering emits (em85_elementwise.c).

CLZ, LSR (TOSA LOGICAL_RIGHT_SHIFT, regor OpType::SHR), SHL and SHR with a feature map of shift
amounts: hand-built TOSA graphs (npu_model_tosa_graphs.U85_GRAPHS) compiled by the real Vela, run on
the NPU model and on the TOSA reference model with the same inputs: bit-exact, and every
command decoded as Vela lists it. One configuration by default, the other four with -m sweep.

LRELU: regor writes it only for a TFLite LEAKY_RELU (tflite_graph_optimiser.cpp:2204-2240), so
no TOSA graph reaches it; a hand-built stream is checked against regor's definition
(ethos_u85_register_cs_generator.cpp:764-772: IFM_SCALE the identity rescale, IFM2_SCALE alpha
times it, OFM_SCALE unit), computed here in Python. What regor leaves undefined stops in one line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from npu_model_stream85 import Elementwise85, Stream85, enum, run85
from npu_model_support import needs_toolchain, u85_cases
from npu_model_tosa_graphs import (
    U85_GRAPHS,
    assert_exact_and_listed,
    compile_graph,
    logical_right_shift,
)

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import parse_blob
from orchestrator.npu_model.execute import Npu, run_program

DEFAULT_TARGET = "ethos-u85-128"
MODE_OF = {"clz": "CLZ", "lsr_tensor": "LSR", "shl_tensor": "SHL", "asr_tensor": "SHR"}

GRAPH_CASES = u85_cases(list(U85_GRAPHS), DEFAULT_TARGET)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "target"), GRAPH_CASES)
def test_an_integer_mode_from_a_tosa_graph_is_exact(name: str, target: str,
                                                    tmp_path: Path) -> None:
    needs_toolchain()
    listing = assert_exact_and_listed(U85_GRAPHS[name](), target, tmp_path)
    mode = enum("elementwise_mode", MODE_OF[name])
    assert ("NPU_OP_ELEMENTWISE", mode) in [(command, param) for _, command, param, _ in listing]


@pytest.mark.slow
def test_a_logical_right_shift_of_an_8_bit_operand_stops_naming_the_precision() -> None:
    """Vela writes LSR for an int8 LOGICAL_RIGHT_SHIFT with a signed 8-bit IFM; whether the NPU
    shifts the operand's 8 bits (TOSA) or its sign-extended accumulator value regor does not
    say, so the model stops instead of choosing."""
    needs_toolchain()
    graph = logical_right_shift("int8")
    program = parse_blob(compile_graph(graph.tosa, DEFAULT_TARGET))
    with pytest.raises(OrchestratorError,
                       match="elementwise_mode LSR with NPU_SET_IFM_PRECISION "
                             "activation_precision of 8 bits on Ethos-U85-128"):
        run_program(program, Npu.for_target_name(DEFAULT_TARGET), list(graph.inputs[0]))


INT16 = np.iinfo(np.int16)
# (scale, shift) as regor's QuantizedScale writes them: identity 0.75, alpha 0.1 x 0.75; a
# rescale above 1 (1.5) with alpha 2.5 (TFLite allows alpha > 1: the sign still selects)
LRELU_SCALES = [((3 << 29, 31), (1717986918, 34)), ((3 << 29, 30), (15 << 27, 30))]


def natural(value: int, scale: int, shift: int) -> int:
    """regor's NATURAL rounding of value * scale / 2^shift (graphir_optimiser.cpp Scale())."""
    return (value * scale + (1 << (shift - 1))) >> shift if shift else value * scale


def leaky_relu(values: np.ndarray, zero_point: int, identity: tuple[int, int],  # type: ignore[type-arg]
               alpha: tuple[int, int]) -> list[int]:
    out = []
    for value in values.tolist():
        centred = value - zero_point
        scaled = natural(centred, *(identity if centred >= 0 else alpha))
        out.append(min(max(scaled, int(INT16.min)), int(INT16.max)))
    return out


@pytest.mark.parametrize("zero_point", [0, 7])
@pytest.mark.parametrize(("identity", "alpha"), LRELU_SCALES)
def test_lrelu_scales_non_negative_inputs_by_ifm_scale_and_negative_by_ifm2_scale(
        zero_point: int, identity: tuple[int, int], alpha: tuple[int, int]) -> None:
    values = np.concatenate([np.array([INT16.min, -1, 0, 1, zero_point - 1, zero_point,
                                       zero_point + 1, INT16.max], dtype=np.int16),
                             np.random.default_rng(5).integers(INT16.min, INT16.max, 56,
                                                               dtype=np.int16, endpoint=True)])
    count = values.size
    scratch = np.zeros(2 * count, dtype=np.int16)
    scratch[:count] = values
    op = Elementwise85("LRELU", (1, 1, count), ifm="S16", ofm="S16", ifm_scale=identity,
                       ifm2_scale=alpha, ifm_zero_point=zero_point, ofm_offset=2 * count)
    code, message = run85(op.emit(Stream85()), scratch.view(np.int8))
    assert code == 0, message
    assert scratch[count:].tolist() == leaky_relu(values, zero_point, identity, alpha)


@pytest.mark.parametrize("mode", ["CLZ", "LSR"])
def test_a_32_bit_mode_on_a_16_bit_ifm_stops_naming_command_field_and_value(mode: str) -> None:
    scratch = np.zeros(64, dtype=np.int8)
    op = Elementwise85(mode, (1, 1, 4), ifm="S16", ofm="S16", scalar=1, ofm_offset=32)
    code, message = run85(op.emit(Stream85()), scratch)
    assert code != 0
    assert message == (f"NPU_OP_ELEMENTWISE elementwise_mode {mode} with NPU_SET_IFM_PRECISION "
                       "activation_precision of 16 bits on Ethos-U85-128 (not modelled: only "
                       "32-bit)")


def test_lsr_shifts_zeros_in_where_shr_keeps_the_sign() -> None:
    values = np.array([-1, -(2 ** 31), 2 ** 31 - 1, -12345], dtype=np.int32)
    outputs = {}
    for mode in ("LSR", "SHR"):
        scratch = np.zeros(2 * values.size, dtype=np.int32)
        scratch[:values.size] = values
        op = Elementwise85(mode, (1, 1, values.size), ifm="S32", ofm="S32", scalar=4,
                           ofm_offset=4 * values.size)
        code, message = run85(op.emit(Stream85()), scratch.view(np.int8))
        assert code == 0, message
        outputs[mode] = scratch[values.size:].tolist()
    assert outputs["LSR"] == [int(v) for v in (values.view(np.uint32) >> 4).astype(np.int32)]
    assert outputs["SHR"] == [natural(int(v), 1, 4) for v in values]
