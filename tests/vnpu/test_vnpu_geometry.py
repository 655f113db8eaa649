"""Geometry on the host NPU model: hardware-scaled (padded) average pools, pools at the edges,
dilated max pools as ExecuTorch rewrites them, and the packed-qkv attention block that Vela
5.1.0 miscompiles (the model refuses it, and the test shows why from the stream itself).

Cases: vnpu_cases_geometry.py. The full sweep runs with -m sweep; a slice runs by default.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np
import pytest
from test_vnpu_core import STOP, U55_128_CONFIG, payload
from vnpu_cases_geometry import (
    CASES,
    INT16_CASES,
    OWN_TESTS,
    ROLLING_BUFFER_CASES,
    ROLLING_BUFFER_FLAGS,
)
from vnpu_support import (
    U55_U65_TARGETS,
    assert_exact,
    assert_listing_matches_vela,
    compiled,
    needs_toolchain,
    verified,
)
from vnpu_support import test_scratch as compile_scratch

from orchestrator.aot import Product, compile_request, make_request
from orchestrator.errors import OrchestratorError
from orchestrator.vnpu import gen_regs
from orchestrator.vnpu.binstream import programs_in_pte
from orchestrator.vnpu.execute import Npu
from orchestrator.vnpu.hostlib import NpuConfig, Status, load_library
from orchestrator.vnpu.listing import Command, model_listing
from orchestrator.vnpu.verify import verify_product

MODULE = "vnpu_cases_geometry"
SLICE = [("avgpool_k3_s2_p1_excl", "ethos-u55-64"), ("avgpool_k3x5_p1x2_excl", "ethos-u65-512")]
SWEEP = [(case, target) for case in CASES if case not in OWN_TESTS for target in U55_U65_TARGETS]
ROLLING_SLICE = [("conv_stack_96", "ethos-u65-256")]
ROLLING_SWEEP = [(case, target) for case in ROLLING_BUFFER_CASES for target in U55_U65_TARGETS
                 if (case, target) not in ROLLING_SLICE]
SWEEP16 = [(case, target) for case in INT16_CASES for target in U55_U65_TARGETS]
INT32_BYTES = 4


@pytest.mark.slow
@pytest.mark.parametrize(("case", "target"), SLICE)
def test_padded_average_pool_is_exact_and_decodes_as_vela_lists(case: str, target: str) -> None:
    needs_toolchain()
    assert_exact(verified(f"{MODULE}:{case}", target))
    assert_listing_matches_vela(compiled(f"{MODULE}:{case}", target))


@pytest.mark.sweep
@pytest.mark.parametrize(("case", "target"), SWEEP)
def test_geometry_sweep_int8(case: str, target: str) -> None:
    needs_toolchain()
    assert_exact(verified(f"{MODULE}:{case}", target))


@pytest.mark.sweep
@pytest.mark.parametrize(("case", "target"), SWEEP16)
def test_geometry_sweep_int16(case: str, target: str) -> None:
    needs_toolchain()
    assert_exact(verified(f"{MODULE}:{case}", target, quantize="a16w8"))


def operations(commands: list[Command]) -> list[tuple[str, dict[str, Command]]]:
    """Each NPU_OP_* of a stream with the last write of every register before it."""
    state: dict[str, Command] = {}
    found = []
    for command in commands:
        if command[1].startswith("NPU_OP_"):
            found.append((command[1], dict(state)))
        else:
            state[command[1]] = command
    return found


def registers_at_first(commands: list[Command], operation: str) -> dict[str, Command]:
    """The registers the first `operation` of a stream runs with."""
    for name, state in operations(commands):
        if name == operation:
            return state
    raise AssertionError(f"no {operation} in the stream")


def param(state: dict[str, Command], name: str) -> int:
    return state[name][2]


def data(state: dict[str, Command], name: str) -> int:
    value = state[name][3]
    assert value is not None
    return value


def rolling_buffer_product(case: str, target: str) -> Product:
    request = make_request(f"{MODULE}:{case}", target, quantize="int8",
                           vela_flags=list(ROLLING_BUFFER_FLAGS))
    return compile_request(request, compile_scratch())


def wraps(product: Product) -> bool:
    """Some operation writes its OFM across a rolling-buffer wrap (OFM tile 2)."""
    return any(param(state, "NPU_SET_OFM_HEIGHT0_M1") < param(state, "NPU_SET_OFM_HEIGHT_M1")
               for program in programs_in_pte(product.pte)
               for name, state in operations(model_listing(program.cmd_data))
               if name in ("NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL"))


def check_rolling_buffers(case: str, target: str) -> None:
    needs_toolchain()
    product = rolling_buffer_product(case, target)
    assert wraps(product), "Vela cascaded without a rolling buffer: no tile is exercised"
    report = verify_product(product, Npu.for_target_name(target), case, target)
    assert_exact(report)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "target"), ROLLING_SLICE)
def test_rolling_buffer_tiles_are_exact(case: str, target: str) -> None:
    check_rolling_buffers(case, target)


@pytest.mark.sweep
@pytest.mark.parametrize(("case", "target"), ROLLING_SWEEP)
def test_rolling_buffer_sweep(case: str, target: str) -> None:
    check_rolling_buffers(case, target)


@pytest.mark.slow
def test_packed_qkv_attention_is_a_vela_miscompile_the_model_refuses() -> None:
    """Vela 5.1.0 lowers the first MatMul (q @ k^T, q a channel slice of the packed qkv output)
    into an ELEMENTWISE MUL that reads all 96 qkv channels and writes them as int32 into a
    scratch buffer sized for the 32-channel slice (+1): regor ethos_u55_constraints.cpp:813
    sizes the buffer from the sliced IFM, ethos_u55_register_cs_generator.cpp:1558 shapes the
    MUL from the unsliced tensor, and the assert that forbids a channel-sliced IFM
    (ethos_u55_register_cs_generator.cpp:1541) is compiled out of the release build. The MUL's
    OFM runs past the end of the scratch region, so real hardware would clobber memory beyond
    it; the model stops naming that access instead of computing something plausible.
    The same block with separate q/k/v projections (vnpu_archs:attention) is exact."""
    needs_toolchain()
    product = compiled(f"{MODULE}:attention_packed_qkv", "ethos-u55-128")
    (program,) = programs_in_pte(product.pte)
    mul = registers_at_first(model_listing(program.cmd_data), "NPU_OP_ELEMENTWISE")
    assert param(mul, "NPU_SET_OFM_DEPTH_M1") + 1 == 96     # all of q, k and v
    last_byte = (data(mul, "NPU_SET_OFM_BASE0")
                 + param(mul, "NPU_SET_OFM_WIDTH_M1") * data(mul, "NPU_SET_OFM_STRIDE_X")
                 + param(mul, "NPU_SET_OFM_DEPTH_M1") * data(mul, "NPU_SET_OFM_STRIDE_C")
                 + INT32_BYTES)
    assert data(mul, "NPU_SET_OFM_STRIDE_X") == 33 * INT32_BYTES  # a row of the 32 + 1 buffer
    assert last_byte > program.scratch_size
    with pytest.raises(OrchestratorError, match="OFM registers address bytes beyond region 1"):
        verified(f"{MODULE}:attention_packed_qkv", "ethos-u55-128")


# --- hand-built streams (no compile): what Vela 5.1.0 never emits for U55/U65 stops by name ---


def encode(register: str, **fields: int) -> list[int]:
    """Command words of one register write or operation, encoded with Vela's own ctypes layout
    (ethosu.vela.ethos_u55_regs npu_*_t); a cmd1 comes out as two words."""
    regs = gen_regs.regs_module()
    name = register.upper()
    code = getattr(regs.cmd0, name, None)
    if code is None:
        fields["payload_size"] = 1
        code = getattr(regs.cmd1, name)
    structure: Any = getattr(regs, f"{register}_t")
    raw = bytes(structure(cmd_code=code.value, **fields))
    return [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw), 4)]


def run(*commands: list[int], region_bytes: int = 16) -> tuple[int, str]:
    """Run a hand-built stream on U55-128 with one zeroed region of `region_bytes`."""
    words = [word for command in commands for word in command]
    data = payload(U55_128_CONFIG, *words, STOP)
    region = np.zeros(region_bytes, dtype=np.uint8)
    bases = (ctypes.c_uint64 * 1)(region.ctypes.data)
    sizes = (ctypes.c_size_t * 1)(region.size)
    status = Status()
    code = load_library().ethosu_model_invoke(ctypes.byref(NpuConfig(55, 128, 1)), data,
                                              len(data), bases, sizes, 1, ctypes.byref(status))
    return code, status.message.decode()


UNSUPPORTED = 3
BAD_ADDRESS = 4
MAX_POOL = encode("npu_op_pool", mode=0)      # POOLING_MODE_MAX
AVERAGE_POOL = encode("npu_op_pool", mode=1)  # POOLING_MODE_AVERAGE


@pytest.mark.parametrize(("commands", "needle"), [
    # regor ethos_u55_register_cs_generator.cpp:1859: U55 DMAs are 1D; ethos_u65_register_cs_
    # generator.cpp:55-58: U65 2D/3D only for Scatter/Gather (U85-only HLC DMAs)
    ((encode("npu_set_dma0_dst_region", stride_mode=1), encode("npu_op_dma_start")),
     "2D/3D stride mode"),
    ((encode("npu_set_dma0_src_region", stride_mode=2), encode("npu_op_dma_start")),
     "2D/3D stride mode"),
    # ethos_u55_register_cs_generator.cpp:1853, ethos_u65_register_cs_generator.cpp:40: the
    # source is always external memory
    ((encode("npu_set_dma0_src_region", internal=1), encode("npu_op_dma_start")),
     "from internal memory"),
    # NEAREST comes only from a TOSA RESIZE (scheduler_decompose.cpp LegaliseResize)
    ((encode("npu_set_ifm_upscale", mode=1), MAX_POOL), "NPU_SET_IFM_UPSCALE mode 1"),
    # a dilated pool: TOSA pools have no dilation (tosa_reader.cpp:699-701, 728-730)
    ((encode("npu_set_kernel_stride", param=1 << gen_regs.kernel_stride_bits()["DILATION_X"]),
      MAX_POOL), "NPU_OP_POOL with dilation"),
    # a padded average with a rescale: regor asserts it away (GenerateOFMScalingForPooling)
    ((encode("npu_set_ifm_pad_top", param=1), encode("npu_set_ofm_scale", shift=1, data=3),
      AVERAGE_POOL), "AVERAGE with padding and a rescale"),
])
def test_streams_vela_never_emits_for_u55_u65_stop_by_name(commands: tuple[list[int], ...],
                                                            needle: str) -> None:
    code, message = run(*commands)
    assert code == UNSUPPORTED and needle in message, message


def test_an_access_beyond_its_region_names_the_feature_map() -> None:
    """A 1x1x1 max pool whose OFM sits at the last byte + 1 of a 16-byte region."""
    code, message = run(encode("npu_set_ofm_base0", data=16), MAX_POOL)
    assert code == BAD_ADDRESS
    assert "NPU_OP_POOL at word 2: its OFM registers address bytes beyond region 0 (16 bytes)" \
        in message
