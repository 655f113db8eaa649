"""Ethos-U elementwise modes no ExecuTorch 1.4.1 lowering emits, from hand-built TOSA graphs
compiled by the real Vela: CLZ (the ExecuTorch Arm backend has a CLZ visitor but no pass makes
tosa.CLZ), SHL/SHR with a feature map of shift amounts (ExecuTorch's `<<`/`>>` have constant
amounts), SHR into an int8 OFM, and ADD/SUB in the 32-bit operand scale modes with 8- and
16-bit operands (ExecuTorch scales int16 ADD/SUB inputs by 2^11, not the 2^14 regor needs to
fuse them: backends/arm/_passes/insert_rescales_pass.py shift_bits = 12).

Each stream runs on the NPU model and its graph on the TOSA reference model: bit-exact;
the decoder is checked against Vela's verbose listing. All six U55/U65 configurations run
with -m sweep; one runs by default.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from npu_model_support import U55_U65_TARGETS, needs_toolchain
from npu_model_tosa_graphs import GRAPHS, _Builder, assert_exact_and_listed, compile_graph

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import VelaProgram, parse_blob
from orchestrator.npu_model.execute import Npu, run_program

DEFAULT_TARGET = "ethos-u55-64"


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GRAPHS))
def test_hand_built_graph_is_exact(name: str, tmp_path: Path) -> None:
    needs_toolchain()
    assert_exact_and_listed(GRAPHS[name](), DEFAULT_TARGET, tmp_path)


@pytest.mark.sweep
@pytest.mark.parametrize("target", [t for t in U55_U65_TARGETS if t != DEFAULT_TARGET])
@pytest.mark.parametrize("name", list(GRAPHS))
def test_hand_built_graph_sweep(name: str, target: str, tmp_path: Path) -> None:
    needs_toolchain()
    assert_exact_and_listed(GRAPHS[name](), target, tmp_path)


@pytest.mark.slow
def test_right_shift_without_rounding_is_refused() -> None:
    """TOSA ARITHMETIC_RIGHT_SHIFT round=false is regor's TRUNCATE_TO_LOWER, which has no U55
    encoding: MapHLCRoundModeToInterface (ethos_u55_register_cs_generator.cpp) falls to its
    default and writes DBL. ExecuTorch never asks for it on U55/U65 (op_tosa_rshift_tensor.py
    sets round=True for the u55 subset), so the model refuses instead of guessing."""
    needs_toolchain()
    builder = _Builder()
    value, amount = builder.input("int32"), builder.input("int32")
    out = builder.op("ARITHMETIC_RIGHT_SHIFT", [value, amount], "int32",
                     "ArithmeticRightShiftAttribute", False)
    graph = GRAPHS["asr_tensor"]()
    program: VelaProgram = parse_blob(compile_graph(builder.finish(out), DEFAULT_TARGET))
    with pytest.raises(OrchestratorError, match="SHR with OFM round mode 0"):
        run_program(program, Npu.for_target_name(DEFAULT_TARGET), graph.inputs[0])


@pytest.mark.slow
def test_shift_amount_outside_tosa_range_is_refused() -> None:
    """TOSA requires shift amounts in 0..31; what the NPU does beyond is not known: refused."""
    needs_toolchain()
    graph = GRAPHS["shl_tensor"]()
    program = parse_blob(compile_graph(graph.tosa, DEFAULT_TARGET))
    value, amount = graph.inputs[0]
    amount = amount.copy()
    amount.reshape(-1)[5] = 32
    with pytest.raises(OrchestratorError, match="shift amount 32 outside 0..31"):
        run_program(program, Npu.for_target_name(DEFAULT_TARGET), [value, amount])
