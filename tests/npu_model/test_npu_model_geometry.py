"""Geometry on the NPU model: hardware-scaled (padded) average pools, pools at the edges,
dilated max pools as ExecuTorch rewrites them, and the packed-qkv attention block that Vela
5.1.0 miscompiles (the model refuses it, and the test shows why from the stream itself).

Cases: npu_model_cases_geometry.py. The full sweep runs with -m sweep; a slice runs by default.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from npu_model_cases_geometry import (
    CASES,
    INT16_CASES,
    OWN_TESTS,
    ROLLING_BUFFER_CASES,
    ROLLING_BUFFER_FLAGS,
)
from npu_model_stream import Stream
from npu_model_stream import run as run_stream
from npu_model_support import (
    U55_U65_TARGETS,
    assert_exact,
    assert_listing_matches_vela,
    compiled,
    needs_toolchain,
    verified,
)
from npu_model_support import test_scratch as compile_scratch

from orchestrator.aot import Product, compile_request, request_for
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model import gen_regs
from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.listing import Command, model_listing
from orchestrator.npu_model.verify import verify_product
from orchestrator.options.compile import CompileChoices

MODULE = "npu_model_cases_geometry"
INT32_BYTES = 4
LUT_ACTIVATION = 16   # NPU_SET_ACTIVATION TABLE_0..7: a LUT in SHRAM
Pair = tuple[str, str]


def sliced(pairs: list[Pair], slice_: list[Pair]) -> list[Any]:
    """(case, target) params: the slice by default (slow), every pair with -m sweep."""
    return ([pytest.param(*pair, marks=pytest.mark.slow, id=f"slice-{pair[0]}-{pair[1]}")
             for pair in slice_] + [pytest.param(*pair, marks=pytest.mark.sweep) for pair in pairs])


def every_target(cases: tuple[str, ...] | list[str]) -> list[Pair]:
    return [(case, target) for case in cases for target in U55_U65_TARGETS]


INT8_SLICE = [("avgpool_k3_s2_p1_excl", "ethos-u55-64"),
              ("avgpool_k3x5_p1x2_excl", "ethos-u65-512")]
INT8 = sliced(every_target([case for case in CASES if case not in OWN_TESTS]), INT8_SLICE)
INT16 = sliced(every_target(INT16_CASES), [])
ROLLING = sliced(every_target(ROLLING_BUFFER_CASES), [("conv_stack_96", "ethos-u65-256")])


def check(product: Product, case: str, target: str) -> None:
    """Bit-exact against the TOSA reference and decoded as Vela lists it."""
    assert_exact(verify_product(product, Npu.for_target_name(target), case, target))
    assert_listing_matches_vela(product)


@pytest.mark.parametrize(("case", "target"), INT8)
def test_geometry_int8(case: str, target: str) -> None:
    needs_toolchain()
    check(compiled(f"{MODULE}:{case}", target), case, target)


@pytest.mark.parametrize(("case", "target"), INT16)
def test_geometry_int16(case: str, target: str) -> None:
    needs_toolchain()
    check(compiled(f"{MODULE}:{case}", target, quantize="a16w8"), case, target)


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


def wraps(product: Product) -> bool:
    """Some operation writes its OFM across a rolling-buffer wrap (OFM tile 2)."""
    return any(param(state, "NPU_SET_OFM_HEIGHT0_M1") < param(state, "NPU_SET_OFM_HEIGHT_M1")
               for program in programs_in_pte(product.pte)
               for name, state in operations(model_listing(program.cmd_data))
               if name in ("NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL"))


@pytest.mark.parametrize(("case", "target"), ROLLING)
def test_rolling_buffer_tiles(case: str, target: str) -> None:
    needs_toolchain()
    request = request_for(f"{MODULE}:{case}", target,
                          CompileChoices(quantize="int8", vela_flags=tuple(ROLLING_BUFFER_FLAGS)))
    product = compile_request(request, compile_scratch())
    assert wraps(product), "Vela cascaded without a rolling buffer: no tile is exercised"
    check(product, case, target)


@pytest.mark.slow
def test_packed_qkv_attention_is_a_vela_miscompile_the_model_refuses() -> None:
    """Vela 5.1.0 lowers the first MatMul (q @ k^T, q a channel slice of the packed qkv output)
    into an ELEMENTWISE MUL that reads all 96 qkv channels and writes them as int32 into a
    scratch buffer sized for the 32-channel slice (+1): regor ethos_u55_constraints.cpp:813
    sizes the buffer from the sliced IFM, ethos_u55_register_cs_generator.cpp:1558 shapes the
    MUL from the unsliced tensor, and the assert that forbids a channel-sliced IFM
    (ethos_u55_register_cs_generator.cpp:1541) is compiled out of the release build. The MUL's
    OFM runs past the end of the scratch region, so real hardware would clobber memory beyond
    it; the model stops naming that access instead of computing something plausible, and
    verify names it a known Vela fault (vela_stream_faults.toml; Vela 5.2.0 writes it the same
    way: tests/toolsets/test_vela_stream_faults.py) with the rewrite around it: the same block
    with separate q/k/v projections (npu_model_archs:attention) is exact."""
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
    with pytest.raises(OrchestratorError, match=re.escape(
            f"OFM registers address bytes beyond region 1 ({program.scratch_size} bytes): a "
            "known fault of Vela 5.1.0's stream")):
        verified(f"{MODULE}:attention_packed_qkv", "ethos-u55-128")


def first_conv_of_height(case: str, rows: int) -> dict[str, Command]:
    """The registers of the first NPU_OP_CONV with an OFM of `rows` rows in a case's U55-128
    stream."""
    product = compiled(f"{MODULE}:{case}", "ethos-u55-128")
    (program,) = programs_in_pte(product.pte)
    return next(state for name, state in operations(model_listing(program.cmd_data))
                if name == "NPU_OP_CONV" and param(state, "NPU_SET_OFM_HEIGHT_M1") == rows - 1)


@pytest.mark.slow
def test_a_fully_connected_ifm_reshaped_apart_from_its_ofm_is_refused() -> None:
    """Vela 5.1.0 gives the first Linear of a Conformer feed-forward block on 990 positions the
    IFM shape 1 x 15 x 66 (regor graphir_optimiser.cpp RewriteFullyConnected: 990 = 15 x 66)
    but keeps its OFM at 990 x 1: the command's IFM registers say 15 rows, 66 rows apart, and
    rows 15 and on come from BASE2 over other tensors (the whole Conformer departs there on
    U55-128). The model stops naming the overlapping IFM tiles."""
    needs_toolchain()
    first = first_conv_of_height("feed_forward_990", 990)
    assert param(first, "NPU_SET_IFM_HEIGHT0_M1") == 14
    assert data(first, "NPU_SET_IFM_STRIDE_Y") == 66 * 16
    with pytest.raises(OrchestratorError, match=re.escape(
            "NPU_OP_CONV IFM rows 15..782 from NPU_SET_IFM_BASE2 overlap rows 0..14 from "
            "NPU_SET_IFM_BASE0 (IFM_HEIGHT0_M1 14): one byte read as two rows")):
        verified(f"{MODULE}:feed_forward_990", "ethos-u55-128")


@pytest.mark.slow
def test_a_batched_linear_with_a_fused_lut_over_a_prime_batch_is_refused() -> None:
    """DeiT-tiny on U55-128 departs at its first MLP (197 tokens): Vela 5.1.0's
    RewriteFullyConnected gives the batched first Linear the IFM shape 1 x 1 x 17 here (17 is
    prime: no divisor below it), while the command, its GELU LUT fused in, keeps the OFM at
    17 x 1. The stream then reads one IFM row and pads it with 16 (its operation's own padding
    is 0): 16 of the 17 tokens would get the bias alone. The model stops naming the field."""
    needs_toolchain()
    first = first_conv_of_height("token_mlp_17", 17)
    assert param(first, "NPU_SET_IFM_PAD_BOTTOM") == 16
    assert param(first, "NPU_SET_IFM_HEIGHT0_M1") == 0
    assert param(first, "NPU_SET_ACTIVATION") >= LUT_ACTIVATION
    with pytest.raises(OrchestratorError, match=re.escape(
            "NPU_OP_CONV NPU_SET_IFM_PAD_BOTTOM 16 pads a 1x1 kernel's IFM of one row: 16 OFM "
            "rows of padding alone")):
        verified(f"{MODULE}:token_mlp_17", "ethos-u55-128")


# --- hand-built streams (no compile): what Vela 5.1.0 never emits for U55/U65 stops by name ---

UNSUPPORTED = 3
BAD_ADDRESS = 4
MAX, AVERAGE = 0, 1  # NPU_OP_POOL pooling modes


def dma(region: str, **fields: int) -> Stream:
    return Stream().cmd0(f"NPU_SET_DMA0_{region}_REGION", **fields).cmd0("NPU_OP_DMA_START", 0)


def pool(mode: int, *writes: tuple[str, int]) -> Stream:
    stream = Stream()
    for name, value in writes:
        stream.cmd0(name, value)
    return stream.cmd0("NPU_OP_POOL", mode)


REFUSED: dict[str, tuple[Callable[[], Stream], str]] = {
    # regor ethos_u55_register_cs_generator.cpp:1859: U55 DMAs are 1D; ethos_u65_register_cs_
    # generator.cpp:55-58: U65 2D/3D only for Scatter/Gather (U85-only HLC DMAs)
    "dma_dst_2d": (lambda: dma("DST", stride_mode=1), "2D/3D stride mode"),
    "dma_src_3d": (lambda: dma("SRC", stride_mode=2), "2D/3D stride mode"),
    # ethos_u55_register_cs_generator.cpp:1853, ethos_u65_register_cs_generator.cpp:40: the
    # source is always external memory
    "dma_from_shram": (lambda: dma("SRC", internal=1), "from internal memory"),
    # NEAREST comes only from a TOSA RESIZE (scheduler_decompose.cpp LegaliseResize)
    "upscale_nearest": (lambda: pool(MAX, ("NPU_SET_IFM_UPSCALE", 1)),
                        "NPU_SET_IFM_UPSCALE mode 1"),
    # TOSA pools have no dilation (tosa_reader.cpp:699-701, 728-730)
    "dilated_pool": (lambda: pool(MAX, ("NPU_SET_KERNEL_STRIDE",
                                        1 << gen_regs.kernel_stride_bits()["DILATION_X"])),
                     "NPU_OP_POOL with dilation"),
    # a padded average with a rescale: regor asserts it away (GenerateOFMScalingForPooling)
    "padded_average_rescaled": (lambda: Stream().cmd0("NPU_SET_IFM_PAD_TOP", 1)
                                .cmd1("NPU_SET_OFM_SCALE", 3, shift=1)
                                .cmd0("NPU_OP_POOL", AVERAGE),
                                "AVERAGE with padding and a rescale (OFM_SCALE 3 shift 1)"),
}


@pytest.mark.parametrize("case", REFUSED)
def test_streams_vela_never_emits_for_u55_u65_stop_by_name(case: str) -> None:
    build, needle = REFUSED[case]
    code, message = run_stream(build().payload(), np.zeros(16, dtype=np.uint8))
    assert code == UNSUPPORTED and needle in message, message


def test_an_access_beyond_its_region_names_the_feature_map() -> None:
    """A 1x1x1 max pool whose OFM sits one byte past the end of the 16-byte region 0."""
    stream = Stream().cmd1("NPU_SET_OFM_BASE0", 16).cmd0("NPU_OP_POOL", MAX)
    code, message = run_stream(stream.payload(), np.zeros(16, dtype=np.uint8))
    assert code == BAD_ADDRESS
    assert "NPU_OP_POOL at word 2: its OFM registers address bytes beyond region 0 (16 bytes)" \
        in message
