"""Every U55/U65 activation clip range (NPU_SET_ACTIVATION act_clip_range), on hand-built
command streams whose expected result is derived from regor's definition.

regor (Vela 5.1.0, architecture/ethosu55/ethos_u55_register_cs_generator.cpp
GenerateActivation, lines 833-893) writes OFM_PRECISION for every operation but a LUT into an
int32 OFM, where it writes FORCE_INT8 and limits ACTIVATION_MIN/MAX to -128..127 (a TFLite
softmax's; no TOSA graph from ExecuTorch reaches it); the interface header
(ethos_u65_interface.hpp activation_clip_range) defines FORCE_UINT8 and FORCE_INT16 too. The
definition the model follows: the OFM is clipped to the forced type's range, intersected with
ACTIVATION_MIN/MAX read as 16-bit values of the forced type's signedness, whatever the OFM's
precision; OFM_PRECISION clips to the OFM type and reads the registers in its signedness
(not applied to a 32-bit OFM). Each value is reached here with a MAX(x, x) at unit scale on
int16 and int32 inputs that span the forced range and beyond it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from npu_model_stream import Elementwise, regs, run
from npu_model_support import check_case, needs_toolchain, written_values
from npu_model_support import test_scratch as compile_scratch

from orchestrator.npu_model.coverage_gen import sdist_reader
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.regor_fields import family_commands
from orchestrator.npu_model.regor_source import vela_sdist
from orchestrator.npu_model.stream_values import stream_values
from orchestrator.npu_model.verify import npu_delegates, verify_product
from orchestrator.options.compile import CompileChoices
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_install import install_toolset
from orchestrator.toolsets.catalogue import find_toolset
from orchestrator.toolsets.compile import compile_under

Array = np.ndarray[Any, Any]
FORCED = {"FORCE_UINT8": (0, 255, False), "FORCE_INT8": (-128, 127, True),
          "FORCE_INT16": (-32768, 32767, True)}
DTYPES = {"U8": np.uint8, "S8": np.int8, "U16": np.uint16, "S16": np.int16, "S32": np.int32}
INPUTS = np.array([-40000, -32768, -300, -129, -128, -5, 0, 1, 127, 128, 255, 256, 300,
                   32767, 40000, 70000], dtype=np.int64)


def clip_value(name: str) -> int:
    return int(regs().clip_range[name].value)


def run_max(ifm: str, ofm: str, clip: str, values: Array,
            act_range: tuple[int, int] | None = None) -> Array:
    """MAX(x, x) at unit scale, `values` in an `ifm` map, the OFM read back as `ofm`."""
    count = values.size
    op = Elementwise("MAX", count, ifm=ifm, ofm=ofm, clip=clip_value(clip), act_range=act_range,
                     rounding="NATURAL", ofm_offset=4 * count)
    scratch = np.zeros(8 * count, dtype=np.uint8)
    scratch[:count * np.dtype(DTYPES[ifm]).itemsize] = values.astype(DTYPES[ifm]).view(np.uint8)
    code, message = run(op.stream().payload(), scratch)
    assert code == 0, message
    width = np.dtype(DTYPES[ofm]).itemsize
    return scratch[4 * count:4 * count + count * width].view(DTYPES[ofm]).astype(np.int64)


def registers(low: int, high: int, signed: bool) -> tuple[int, int]:
    """ACTIVATION_MIN/MAX as Elementwise writes them (low 16 bits)."""
    return (low if signed else low & 0xFFFF), (high if signed else high & 0xFFFF)


def regor_clip(values: Array, clip: str, ofm: str, act: tuple[int, int]) -> Array:
    """The definition above, then the OFM type's saturation."""
    info = np.iinfo(DTYPES[ofm])
    low, high = act
    if clip == "OFM_PRECISION":
        if ofm == "S32":
            low, high = int(info.min), int(info.max)
    else:
        forced_low, forced_high, _ = FORCED[clip]
        low, high = max(low, forced_low), min(high, forced_high)
    return np.clip(np.clip(values, low, high), int(info.min), int(info.max))


@pytest.mark.parametrize("clip", sorted(FORCED))
@pytest.mark.parametrize(("ifm", "ofm"), [("S16", "S16"), ("S32", "S32"), ("S16", "S8"),
                                          ("S16", "U8"), ("S32", "S16")])
def test_hand_built_stream_forced_clip_range_per_regor_definition(clip: str, ifm: str,
                                                                  ofm: str) -> None:
    """The forced range with ACTIVATION_MIN/MAX spanning it (what regor writes: the range)."""
    low, high, signed = FORCED[clip]
    info = np.iinfo(DTYPES[ifm])
    values = np.clip(INPUTS, int(info.min), int(info.max))
    got = run_max(ifm, ofm, clip, values, registers(low, high, signed))
    assert got.tolist() == regor_clip(values, clip, ofm, (low, high)).tolist()


@pytest.mark.parametrize("clip", sorted(FORCED))
def test_hand_built_stream_forced_clip_range_reads_min_max_in_the_forced_type(clip: str) -> None:
    """Registers inside the forced range narrow it; read in the forced type's signedness (so a
    FORCE_UINT8 register of 200 is 200 even into a signed OFM)."""
    low, high, signed = FORCED[clip]
    act = (low + 3, high - 55) if signed else (50, 200)
    values = np.clip(INPUTS, -32768, 32767)
    got = run_max("S16", "S16", clip, values, registers(*act, signed))
    assert got.tolist() == regor_clip(values, clip, "S16", act).tolist()


def test_hand_built_stream_ofm_precision_leaves_a_32_bit_ofm_unclipped() -> None:
    got = run_max("S32", "S32", "OFM_PRECISION", INPUTS, (-5, 5))
    assert got.tolist() == INPUTS.tolist()


def test_hand_built_stream_force_int8_is_what_regor_writes_for_an_int32_ofm() -> None:
    """regor's own use: an int32 OFM with FORCE_INT8 and registers limited to -128..127."""
    got = run_max("S32", "S32", "FORCE_INT8", INPUTS, (-128, 127))
    assert got.tolist() == np.clip(INPUTS, -128, 127).tolist()


def test_an_undefined_clip_range_is_refused() -> None:
    op = Elementwise("MAX", 4, clip=1)
    code, message = run(op.stream().payload(), np.zeros(128, dtype=np.uint8))
    assert code == 3 and "NPU_SET_ACTIVATION clip range value 1" in message, message


# Compiled graphs reaching each clip range regor writes (U55/U65 OFM_PRECISION; U85 B16 for an
# OFM of 16 bits or less and NONE for a wider one: ethos_u85_register_cs_generator.cpp:1011),
# bit-exact against the TOSA reference. (U55 FORCE_INT8 needs a LUT into an int32 OFM, which
# only regor's TFLite softmax makes: no TOSA graph reaches it; see the hand-built tests above.)
REACHED = [("npu_model_cases_activation:clamp_narrow", "ethos-u55-128", "OFM_PRECISION"),
           ("npu_model_cases_activation:softmax_last", "ethos-u55-128", "OFM_PRECISION"),
           ("npu_model_cases_activation:clamp_narrow", "ethos-u85-128", "B16"),
           ("npu_model_cases_activation:softmax_last", "ethos-u85-128", "NONE")]
def clip_ranges_written(model: str, target: str) -> set[str]:
    """The activation clip ranges the compiled streams of `model` write."""
    return {member for command, field, member in written_values(model, target)
            if (command, field) == ("NPU_SET_ACTIVATION", "activation_clip_range")}


def _reached(model: str, target: str, clip: str) -> None:
    needs_toolchain()
    assert clip in clip_ranges_written(model, target)
    check_case(model, target)


@pytest.mark.slow
def test_clip_range_reached_by_a_compiled_graph_slice() -> None:
    _reached(*REACHED[2])


@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target", "clip"), REACHED)
def test_sweep_clip_range_reached_by_a_compiled_graph(model: str, target: str, clip: str) -> None:
    _reached(model, target, clip)


# FORCE_INT16 from a compiled graph: the pinned Vela 5.1.0 never writes it; Vela 5.2.0 (the
# vela-5.2.0 toolset) writes it on U55 for DeiT-tiny as upstream's test builds it, and for that
# DeiT-tiny cut to one block (benchmarks/models/deit_tiny_one_block.py: its layer norms' MUL by
# the reciprocal standard deviation, an int32 OFM clipped to -128..127). About 6 minutes of
# compile on two cores, so -m sweep only.
DEIT_ONE_BLOCK = Path(__file__).resolve().parents[2] / "benchmarks" / "models" / \
    "deit_tiny_one_block.py"


@pytest.mark.slow
@pytest.mark.sweep
def test_sweep_force_int16_reached_by_one_deit_tiny_block_under_vela_5_2_0() -> None:
    needs_toolchain()
    toolset, target, model = find_toolset("vela-5.2.0"), "ethos-u55-128", str(DEIT_ONE_BLOCK)
    where = compile_scratch()
    install_toolset(toolset, SetupOptions(), where)
    (done,) = compile_under(toolset, model, (target,), CompileChoices(), where)
    assert done.product is not None, done.error
    assert done.product.versions.vela == "5.2.0"
    layout = family_commands("u55u65", sdist_reader(vela_sdist()))
    clips = {member for _p, program in npu_delegates(done.product, model, target)
             for command, field, member in stream_values(program.cmd_data, layout)
             if (command, field) == ("NPU_SET_ACTIVATION", "activation_clip_range")}
    assert clips == {"OFM_PRECISION", "FORCE_INT16"}, clips
    report = verify_product(done.product, Npu.for_target_name(target), model, target)
    assert report.exact and report.departures == [] and report.write_findings == [], (
        report.to_json()["checks"])
