"""Per-operation observation on the Ethos-U85 (`invoke verify`'s localisation and write checks):
the observer reports what each operation really stored, not what its OFM registers say. A
chained operation stores nothing in memory (its OFM is a chain buffer; the chain's last
operation carries the chain's TOSA operators); a transposed OFM is reported with its stored
shape; a RESIZE is an operation like the others. Exact programs draw no write finding and no
departure on every U85 configuration (one program per configuration and a RESIZE by default,
all of them with -m sweep); a hand-made departure in a real U85 stream (a weight byte, a bias,
the zero point of a transposed store, the bias of a chained convolution, the bias of one
channel stripe) is located at its operation; a real overlapping write is still named."""

from __future__ import annotations

import ctypes
import dataclasses
import struct
from typing import Any

import numpy as np
import pytest
from npu_model_stream85 import TRANSPOSES, Elementwise85, Stream85, run85, transposed_add
from npu_model_support import U85_TARGETS, compiled, needs_toolchain

from orchestrator.npu_model.binstream import VelaProgram, programs_in_pte
from orchestrator.npu_model.clobber import check_writes
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.hostlib import OBSERVER, FeatureMap, load_library
from orchestrator.npu_model.listing import Command, model_listing
from orchestrator.npu_model.locate import describe_departure, locate_departure
from orchestrator.npu_model.observe import ObservedOp, fmap_addresses, observe_program
from orchestrator.npu_model.spans import span_bytes
from orchestrator.npu_model.transposes import VelaTranspose, vela_transposes
from orchestrator.npu_model.verify import random_inputs, verify_product
from orchestrator.profile.attach import vela_partitions
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions

COMPUTE = ("NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE")
WEIGHT_REGION = 0
FAST_REGION = 2   # the fast scratch
COMMAND_STREAM_ACTION = 2   # the COP1 driver action carrying the command stream
PROGRAMS = ("mv2", "convnet", "add", "npu_model_archs:attention", "npu_model_archs:resnet8",
            "npu_model_archs:dscnn", "npu_model_archs:autoencoder", "npu_model_cases_u85:layernorm",
            "npu_model_cases_u85:gelu", "npu_model_cases_u85:softmax_last",
            "npu_model_cases_u85:matmul",
            "npu_model_cases_u85:permute_nhwc", "npu_model_cases_u85:mean_c",
            "npu_model_cases_u85:upsample_bilinear", "npu_model_cases_u85:downsample_nearest",
            "npu_model_u85_block:block_separate", "npu_model_u85_block:block_packed",
            "npu_model_u85_block:block_softmax_queries",
            "npu_model_cases_geometry:attention_packed_qkv")
SLICE = {("mv2", "ethos-u85-2048"), ("convnet", "ethos-u85-128"),
         ("npu_model_u85_block:block_packed", "ethos-u85-256"),
         ("npu_model_cases_u85:matmul", "ethos-u85-512"),
         ("npu_model_archs:attention", "ethos-u85-1024"),
         ("npu_model_cases_u85:upsample_bilinear", "ethos-u85-128")}
EXACT = [pytest.param(model, target, marks=() if (model, target) in SLICE else pytest.mark.sweep)
         for target in U85_TARGETS for model in PROGRAMS]


@dataclasses.dataclass(frozen=True)
class Partition:
    tosa: bytes
    program: VelaProgram
    names: list[str]
    transposes: list[VelaTranspose]


def _partition(model: str, target: str, quantize: str = "int8") -> Partition:
    needs_toolchain()
    product = compiled(model, target, quantize)
    rows = vela_partitions(product.directory / "vela_report.json")[0]["operators"]
    return Partition(product_partitions(product)[0].tosa, programs_in_pte(product.pte)[0],
                     [str(row["name"]) for row in rows], vela_transposes(rows))


def _locate(part: Partition, target: str, program: VelaProgram | None = None
            ) -> dict[str, Any] | None:
    inputs = random_inputs(graph_interface(part.tosa), 0)
    return locate_departure(part.tosa, program or part.program, Npu.for_target_name(target),
                            inputs, part.names, part.transposes)


def _operations(program: VelaProgram) -> tuple[list[Command], list[Command]]:
    commands = model_listing(program.cmd_data)
    return commands, [c for c in commands if c[1] in COMPUTE]


def _registers_before(commands: list[Command], offset: int) -> dict[str, int]:
    return {name: (data if data is not None else param)
            for at, name, param, data in commands if at < offset}


def _weight_offset(program: VelaProgram, operation: int, register: str) -> int:
    """Where in the weight region the bytes `register` (NPU_SET_WEIGHT_BASE or
    NPU_SET_SCALE_BASE) points at for operation `operation` come from: read in place, or
    DMA'd into another region before it (the last DMA covering them)."""
    commands, operations = _operations(program)
    at = operations[operation][0]
    registers = _registers_before(commands, at)
    base, region = registers[register], registers[register.replace("BASE", "REGION")]
    if region == WEIGHT_REGION:
        return base
    dmas = [_registers_before(commands, c[0]) for c in commands
            if c[1] == "NPU_OP_DMA_START" and c[0] < at]
    dma = next(d for d in reversed(dmas) if d["NPU_SET_DMA0_DST_REGION"] == region
               and d["NPU_SET_DMA0_DST"] <= base < d["NPU_SET_DMA0_DST"] + d["NPU_SET_DMA0_LEN"])
    assert dma["NPU_SET_DMA0_SRC_REGION"] == WEIGHT_REGION
    return int(dma["NPU_SET_DMA0_SRC"] + base - dma["NPU_SET_DMA0_DST"])


def _weights_flipped(program: VelaProgram, offset: int, flip: int = 0x01) -> VelaProgram:
    weights = bytearray(program.weight_data)
    weights[offset] ^= flip
    return dataclasses.replace(program, weight_data=bytes(weights))


def _stream_start(cmd_data: bytes) -> int:
    """Byte offset of the command stream inside the COP1 payload (after its driver header)."""
    words = struct.unpack(f"<{len(cmd_data) // 4}I", cmd_data)
    position = 1
    while words[position] & 0xff != COMMAND_STREAM_ACTION:
        position += 3 if words[position] & 0xff == 1 else 1
    return (position + 1) * 4


def _word_patched(program: VelaProgram, stream_offset: int, word: int) -> VelaProgram:
    """The program with the stream word at `stream_offset` replaced."""
    data = bytearray(program.cmd_data)
    struct.pack_into("<I", data, _stream_start(program.cmd_data) + stream_offset, word)
    return dataclasses.replace(program, cmd_data=bytes(data))


def _last_before(commands: list[Command], name: str, offset: int) -> Command:
    return [c for c in commands if c[1] == name and c[0] < offset][-1]


def _observed(stream: Stream85, scratch: np.ndarray[Any, Any]
              ) -> list[tuple[FeatureMap, FeatureMap, FeatureMap]]:
    """(OFM, IFM, IFM2) of each operation of a hand-built stream as the observer reports them."""
    seen: list[tuple[FeatureMap, FeatureMap, FeatureMap]] = []

    def record(operation: Any, _user: Any) -> int:
        op = operation.contents
        if op.index >= 0:
            seen.append(tuple(FeatureMap.from_buffer_copy(f)  # type: ignore[arg-type]
                              for f in (op.ofm, op.ifm, op.ifm2)))
        return 0

    callback = OBSERVER(record)
    library = load_library()
    library.npu_model_observe(callback, ctypes.c_void_p())
    try:
        code, message = run85(stream, scratch)
    finally:
        library.npu_model_observe(OBSERVER(), None)
    assert code == 0, message
    return seen


@pytest.mark.parametrize("transpose", sorted(TRANSPOSES))
def test_a_transposed_ofm_is_reported_as_stored(transpose: str) -> None:
    """Each of the five transposes: the observer's OFM is the stored tensor (its shape, and
    addresses holding exactly numpy's transpose), with the permutation; the scalar IFM2 an
    ADD does not read from memory is not reported."""
    stream, scratch, stored = transposed_add(transpose)
    [(ofm, ifm, ifm2)] = _observed(stream, scratch)
    assert (ofm.height, ofm.width, ofm.depth) == stored.shape
    assert tuple(ofm.axes) == TRANSPOSES[transpose] and ofm.chain == -1
    address = fmap_addresses(ofm, scratch.size)
    assert address is not None
    assert np.array_equal(scratch[address].reshape(stored.shape), stored)
    assert (ifm.height, ifm.width, ifm.depth) == (2, 3, 5) and ifm2.region == -1


def test_a_chained_ofm_is_reported_as_stored_nowhere() -> None:
    shape = (2, 2, 3)
    scratch = np.zeros(1024 + 4 * 12, dtype=np.int8)
    stream = Elementwise85("ADD", shape, ofm="S32", scalar=5,
                           ofm_storage="CHAINED").emit(Stream85())
    Elementwise85("MUL", shape, ifm="S32", ofm="S32", scalar=2, ifm_storage="CHAINED").emit(stream)
    [(first, _, _), (second, ifm, _)] = _observed(stream, scratch)
    assert first.region == -1 and first.chain == 0
    assert (first.height, first.width, first.depth, first.bytes) == (*shape, 4)
    assert ifm.region == -1 and ifm.chain == 0
    assert second.region == 1 and second.chain == -1


@pytest.mark.slow
@pytest.mark.parametrize(("model", "target"), EXACT)
def test_exact_u85_programs_draw_no_finding_and_no_departure(model: str, target: str) -> None:
    needs_toolchain()
    product = compiled(model, target)
    report = verify_product(product, Npu.for_target_name(target), model, target, seeds=(0,))
    assert report.exact and report.observation_refused is None
    assert report.write_findings == [] and report.departures == []
    assert _locate(_partition(model, target), target) is None


@pytest.mark.slow
def test_observer_reports_what_transposed_and_chained_operations_store() -> None:
    """resnet8 on U85-128: its input transpose (a POOL storing 3x32x32 as 32x32x3) is reported
    as stored; a chained convolution stores nothing, the ADD after it reads the chain."""
    part = _partition("npu_model_archs:resnet8", "ethos-u85-128")
    ops = [op for op in observe_program(part.program, Npu.for_target_name("ethos-u85-128"),
                                        random_inputs(graph_interface(part.tosa), 0)).operations
           if op.index >= 0]
    transposed = ops[0]
    assert transposed.transposed and transposed.ofm is not None
    assert transposed.ofm.shape == (32, 32, 3, 1) and transposed.overlapping.size == 0
    chained = [op for op in ops if op.chained_out]
    assert chained and all(op.ofm is None and op.ofm_region == -1 for op in chained)
    assert all(ops[op.index + 1].chained_in for op in chained)


@pytest.mark.slow
def test_corrupted_bias_of_the_last_conv_is_located_on_u85() -> None:
    part = _partition("convnet", "ethos-u85-128")
    _commands, operations = _operations(part.program)
    last = len(operations) - 1
    assert operations[last][1] == "NPU_OP_CONV"
    offset = _weight_offset(part.program, last, "NPU_SET_SCALE_BASE")
    found = _locate(part, "ethos-u85-128", _weights_flipped(part.program, offset + 2))
    assert found is not None, "a corrupted bias went unnoticed"
    assert found["operation"] == last and found["command"] == "NPU_OP_CONV"
    assert found["tosa_operators"] == ["CONV2D", "RESCALE", "RESHAPE"]


@pytest.mark.slow
def test_wrong_weight_byte_mid_stream_is_located_at_its_conv_on_u85() -> None:
    """The first convolution (operation 1, after the transposed input store) departs first."""
    part = _partition("convnet", "ethos-u85-128")
    offset = _weight_offset(part.program, 1, "NPU_SET_WEIGHT_BASE")
    found = _locate(part, "ethos-u85-128", _weights_flipped(part.program, offset + 10, 0x10))
    assert found is not None, "a wrong weight byte went unnoticed"
    assert found["operation"] == 1 and found["tosa_tensor"] == "tosa_rescale_default"
    assert found["tosa_operators"] == ["CONV2D", "RESCALE"]


@pytest.mark.slow
def test_departing_transposed_store_is_located_at_it() -> None:
    """convnet's first operation stores the TOSA TRANSPOSE of the input transposed; a wrong OFM
    zero point there is named at it, as that TRANSPOSE, not at the convolution reading it."""
    part = _partition("convnet", "ethos-u85-128")
    commands, operations = _operations(part.program)
    zero_point = _last_before(commands, "NPU_SET_OFM_ZERO_POINT", operations[0][0])
    word = struct.unpack_from("<I", part.program.cmd_data,
                              _stream_start(part.program.cmd_data) + zero_point[0])[0]
    found = _locate(part, "ethos-u85-128",
                    _word_patched(part.program, zero_point[0], word ^ (1 << 16)))
    assert found is not None and found["operation"] == 0
    assert found["tosa_tensor"] == "tosa_transpose_default"
    assert found["tosa_operators"] == ["TRANSPOSE"]


@pytest.mark.slow
def test_departing_chained_conv_is_located_at_the_chain_end_with_its_operators() -> None:
    """A wrong bias of resnet8's first chained convolution: nothing of it reaches memory, so
    the ADD ending the chain is named, carrying the convolution's TOSA operators."""
    part = _partition("npu_model_archs:resnet8", "ethos-u85-128")
    ops = observe_program(part.program, Npu.for_target_name("ethos-u85-128"),
                          random_inputs(graph_interface(part.tosa), 0)).operations
    conv = next(op for op in ops if op.chained_out and op.name == "NPU_OP_CONV")
    offset = _weight_offset(part.program, conv.index, "NPU_SET_SCALE_BASE")
    found = _locate(part, "ethos-u85-128", _weights_flipped(part.program, offset + 2, 0x10))
    assert found is not None, "a wrong bias of a chained convolution went unnoticed"
    assert found["operation"] == conv.index + 1
    assert found["command"] == "NPU_OP_ELEMENTWISE" and found["tosa_tensor"] == "tosa_clamp_default"
    assert {"CONV2D", "ADD", "CLAMP"} <= set(found["tosa_operators"])


@pytest.mark.slow
@pytest.mark.parametrize(("stripe", "tensor", "channels"),
                         [(4, "tosa_clamp_default_3", [32, 64]),
                          (6, "tosa_reshape_default_11", [0, 64])])
def test_departing_channel_stripe_is_located_at_it(stripe: int, tensor: str,
                                                   channels: list[int]) -> None:
    """autoencoder a16w8 on U85-512 computes two tensors in two channel stripes each
    (operations 3-4: the 64 channels of the fourth Linear; 6-7: the 128 of the last): a wrong
    bias of one stripe is named at that stripe, with the channels of the tensor it holds."""
    target = "ethos-u85-512"
    part = _partition("npu_model_archs:autoencoder", target, "a16w8")
    offset = _weight_offset(part.program, stripe, "NPU_SET_SCALE_BASE")
    found = _locate(part, target, _weights_flipped(part.program, offset + 2, 0x10))
    assert found is not None, "a wrong bias of a channel stripe went unnoticed"
    assert found["operation"] == stripe and found["command"] == "NPU_OP_CONV"
    assert found["tosa_tensor"] == tensor and found["channels"] == channels
    assert "CONV2D" in found["tosa_operators"]
    assert f"its channels {channels[0]}..{channels[1] - 1}" in describe_departure(found)


@pytest.mark.slow
def test_overlapping_write_in_a_u85_stream_is_named() -> None:
    """The MatMul on U85-512 writes row k of its output after reading row k of input 0: its
    first row's OFM moved onto input 0's second row writes over a live tensor."""
    target = "ethos-u85-512"
    part = _partition("npu_model_cases_u85:matmul", target)
    npu = Npu.for_target_name(target)
    inputs = random_inputs(graph_interface(part.tosa), 0)
    assert check_writes(part.program, npu, inputs) == []
    commands, operations = _operations(part.program)
    first, second = operations[1], operations[2]
    row = _registers_before(commands, second[0])["NPU_SET_IFM_BASE0"]
    base = _last_before(commands, "NPU_SET_OFM_BASE0", first[0])
    moved = _word_patched(part.program, base[0] + 4, row)
    findings = [c.to_json() for c in check_writes(moved, npu, inputs)]
    assert findings and findings[0]["operation"] == 1
    assert findings[0]["clobbers"] == "input 0" and findings[0]["read_by_operation"] > 1
    assert findings[0]["scratch_range"][0] == row


def _fast_bytes(spans: Any) -> set[int]:
    return {int(b) for b in span_bytes(spans)}


def _last_reader(victim: ObservedOp, ops: list[ObservedOp]) -> int:
    """The last operation reading bytes of the victim's OFM no later store replaced (-1)."""
    held, last = _fast_bytes(victim.writes[FAST_REGION]), -1
    for op in ops[victim.index + 1:]:
        if any(region == FAST_REGION and held & _fast_bytes(spans) for region, spans in op.reads):
            last = op.index
        held -= _fast_bytes(op.writes.get(FAST_REGION, np.zeros((0, 2), np.int64)))
    return last


def _live_window_in_fast_scratch(ops: list[ObservedOp]) -> tuple[ObservedOp, ObservedOp]:
    """(victim, writer): an OFM stored in the fast scratch (region 2) that an operation still
    reads after another operation storing in region 2 (the writer) ran."""
    stored = [op for op in ops if op.ofm_layout is not None and op.ofm_region == FAST_REGION]
    for victim in stored:
        reader = _last_reader(victim, ops)
        between = [op for op in stored if victim.index < op.index < reader]
        if between:
            return victim, between[0]
    raise AssertionError("no tensor in the fast scratch is read after another store")


@pytest.mark.slow
def test_write_over_a_live_tensor_in_the_fast_scratch_is_named() -> None:
    """Region 2 is watched (Vela keeps U85 tensors there): resnet8 on U85-128 is exact with no
    finding, and an operation whose OFM is moved onto a tensor a later operation still reads
    (half-way onto its residual branch's input) is named, in region 2, with the tensor it
    clobbers (a store over all of it would read as that operation's tensor: liveness comes
    from the run)."""
    target = "ethos-u85-128"
    part = _partition("npu_model_archs:resnet8", target)
    npu = Npu.for_target_name(target)
    inputs = random_inputs(graph_interface(part.tosa), 0)
    assert check_writes(part.program, npu, inputs) == []
    ops = [op for op in observe_program(part.program, npu, inputs).operations if op.index >= 0]
    victim, writer = _live_window_in_fast_scratch(ops)
    commands, operations = _operations(part.program)
    base = _last_before(commands, "NPU_SET_OFM_BASE0", operations[writer.index][0])
    assert victim.ofm_layout is not None
    half = victim.writes[FAST_REGION][-1, 1] - victim.writes[FAST_REGION][0, 0]
    moved = _word_patched(part.program, base[0] + 4,
                          victim.ofm_layout.offset + int(half) // 32 * 16)
    findings = [c.to_json() for c in check_writes(moved, npu, inputs)]
    assert any(f["region"] == FAST_REGION and f["operation"] == writer.index
               and f["clobbers"] == f"the OFM of operation {victim.index}" for f in findings), \
        findings
