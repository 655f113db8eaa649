"""`invoke verify`'s localisation: a hand-made departure in a real Vela stream (a corrupted scale
record, a wrong weight byte) is found at the operation that reads it, with the TOSA tensor it
computes and both values; an exact program reports no departure, also where an operation
computes only part of a TOSA tensor (a channel stripe) or a tensor Vela keeps to itself (the
Add of a Rescale it splits in two) with another tensor's shape."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from npu_model_support import compiled, needs_toolchain

from orchestrator.npu_model.binstream import VelaProgram, programs_in_pte
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.listing import model_listing
from orchestrator.npu_model.locate import (
    _Pairing,
    candidate_tensors,
    describe_departure,
    first_departure,
    locate_departure,
)
from orchestrator.npu_model.observe import ObservedOp, observe_program
from orchestrator.npu_model.transposes import stored_as, vela_transposes
from orchestrator.npu_model.verify import random_inputs, verify_product
from orchestrator.profile.attach import vela_partitions
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.intermediates import run_with_intermediates
from orchestrator.tosa.partitions import product_partitions

pytestmark = pytest.mark.slow
# Exact programs on which an OFM was once compared with a tensor it does not hold. autoencoder
# a16w8 on U85-512: its last Linear is two 64-channel stripes of the 128-channel output, the
# first shaped like the tensor before it (Vela's table lists that tensor twice: its Conv2D and
# Clamp rows). attention on U65-512: Vela splits a Rescale into an Add (its table's
# "aten_amax_default_int32", no TOSA tensor) and a Mul, and the Add's OFM has the Rescale's
# shape.
NOT_DEPARTING = [pytest.param("npu_model_archs:attention", "ethos-u65-512", "int8",
                              marks=pytest.mark.sweep),
                 pytest.param("npu_model_archs:autoencoder", "ethos-u85-512", "a16w8")]
TARGET = "ethos-u55-128"
COMPUTE = ("NPU_OP_CONV", "NPU_OP_DEPTHWISE", "NPU_OP_POOL", "NPU_OP_ELEMENTWISE")
WEIGHT_REGION = 0


def _last_conv_base(program: VelaProgram, register: str) -> tuple[int, int]:
    """(operation index, weight-region offset) of `register` for the stream's last NPU_OP_CONV
    (the stream's last operation in convnet: its weights and scales are read in place)."""
    commands = model_listing(program.cmd_data)
    operations = [c for c in commands if c[1] in COMPUTE]
    assert operations[-1][1] == "NPU_OP_CONV"
    bases = [c for c in commands if c[1] == register and c[0] < operations[-1][0]]
    regions = [c for c in commands if c[1] == register.replace("BASE", "REGION")]
    assert regions[-1][2] == WEIGHT_REGION  # read from the weight region, not DMA'd
    assert bases[-1][3] is not None
    return len(operations) - 1, bases[-1][3]


def _conv_scale_source(program: VelaProgram, nth: int = 0) -> tuple[int, int]:
    """(operation index, weight-region offset) of the `nth` NPU_OP_CONV's scale records: they
    are DMA'd into scratch (or fast scratch) before it, so the offset is the DMA's source."""
    commands = model_listing(program.cmd_data)
    operations = [c for c in commands if c[1] in COMPUTE]
    conv = [c for c in operations if c[1] == "NPU_OP_CONV"][nth]
    before = [c for c in commands if c[0] < conv[0]]
    last = {name: value for _o, name, param, data in before
            for value in [data if data is not None else param]}
    assert last["NPU_SET_SCALE_REGION"] == last["NPU_SET_DMA0_DST_REGION"] > WEIGHT_REGION
    assert last["NPU_SET_DMA0_SRC_REGION"] == WEIGHT_REGION
    inside = last["NPU_SET_SCALE_BASE"] - last["NPU_SET_DMA0_DST"]
    assert 0 <= inside < last["NPU_SET_DMA0_LEN"]
    return operations.index(conv), last["NPU_SET_DMA0_SRC"] + inside


def _corrupted(program: VelaProgram, offset: int, flip: int = 0x01) -> VelaProgram:
    weights = bytearray(program.weight_data)
    weights[offset] ^= flip
    return dataclasses.replace(program, weight_data=bytes(weights))


def _convnet() -> tuple[bytes, VelaProgram, list[str]]:
    needs_toolchain()
    product = compiled("convnet", TARGET)
    partition = product_partitions(product)[0]
    names = [str(row["name"]) for row in
             vela_partitions(product.directory / "vela_report.json")[0]["operators"]]
    return partition.tosa, programs_in_pte(product.pte)[0], names


def test_exact_program_reports_no_departure() -> None:
    tosa, program, names = _convnet()
    inputs = random_inputs(graph_interface(tosa), 0)
    assert locate_departure(tosa, program, Npu.for_target_name(TARGET), inputs, names) is None


def test_corrupted_scale_record_is_located_at_its_operation() -> None:
    tosa, program, names = _convnet()
    operation, offset = _last_conv_base(program, "NPU_SET_SCALE_BASE")
    inputs = random_inputs(graph_interface(tosa), 0)
    # bit 16 of channel 0's bias (a scale record: 40-bit bias, 32-bit scale, 6-bit shift)
    found = locate_departure(tosa, _corrupted(program, offset + 2), Npu.for_target_name(TARGET),
                             inputs, names)
    assert found is not None, "a corrupted bias went unnoticed"
    assert found["operation"] == operation and found["command"] == "NPU_OP_CONV"
    assert found["tosa_operators"] == ["CONV2D", "RESCALE", "RESHAPE"]
    first = found["first"]
    assert first["index"][-1] == 0 and first["device"] != first["reference"]
    assert found["differing"] == 1
    assert f"NPU operation {operation} (NPU_OP_CONV" in describe_departure(found)


def test_wrong_weight_byte_is_located_at_its_operation() -> None:
    tosa, program, names = _convnet()
    operation, offset = _last_conv_base(program, "NPU_SET_WEIGHT_BASE")
    inputs = random_inputs(graph_interface(tosa), 0)
    found = locate_departure(tosa, _corrupted(program, offset + 10),
                             Npu.for_target_name(TARGET), inputs, names)
    assert found is not None, "a wrong weight byte went unnoticed"
    assert found["operation"] == operation
    assert found["worst"]["device"] != found["worst"]["reference"]


def test_departure_mid_stream_is_located_there_not_at_the_output() -> None:
    """A corrupted bias of the first convolution (the stream's operation 33, after the input
    transpose): every later operation departs too, the first one named is that convolution."""
    tosa, program, names = _convnet()
    operation, offset = _conv_scale_source(program)
    inputs = random_inputs(graph_interface(tosa), 0)
    found = locate_departure(tosa, _corrupted(program, offset + 2),
                             Npu.for_target_name(TARGET), inputs, names)
    assert found is not None and found["operation"] == operation
    assert found["tosa_tensor"] == "tosa_rescale_default"
    assert found["tosa_operators"] == ["CONV2D", "RESCALE"]


def test_one_vela_operation_is_one_candidate_and_a_copy_is_another() -> None:
    """Consecutive rows of one name (a Conv2D and its fused Clamp) are one operation; a
    MemoryCopy of a tensor stores it again; names that are no TOSA tensor are dropped."""
    reference = {name: np.zeros(4, np.int8) for name in ("a", "b", "c")}
    rows = ["a", "a", "a_int32", "b", "b_copy", "c", "c", "a"]
    assert candidate_tensors(rows, reference) == ["a", "b", "b", "c", "a"]
    assert candidate_tensors(["x"], reference) == ["a", "b", "c"]


@pytest.mark.parametrize(("model", "target", "quantize"), NOT_DEPARTING)
def test_exact_program_with_part_or_internal_ofms_reports_no_departure(
        model: str, target: str, quantize: str) -> None:
    needs_toolchain()
    product = compiled(model, target, quantize)
    npu = Npu.for_target_name(target)
    report = verify_product(product, npu, model, target, seeds=(0,))
    assert report.exact and report.departures == []
    rows = vela_partitions(product.directory / "vela_report.json")[0]["operators"]
    partition = product_partitions(product)[0]
    found = locate_departure(partition.tosa, programs_in_pte(product.pte)[0], npu,
                             random_inputs(graph_interface(partition.tosa), 0),
                             [str(row["name"]) for row in rows], vela_transposes(rows))
    assert found is None, describe_departure(found)


ALIKE_MODEL, ALIKE_TARGET = "npu_model_archs:resnet8", "ethos-u85-128"


def _observed_alike(program: VelaProgram, tosa: bytes
                    ) -> tuple[list[ObservedOp], dict[str, np.ndarray[Any, Any]]]:
    """resnet8's observed operations and TOSA tensors: its first three convolutions store
    tensors of one shape (the stem's, then its first block's two)."""
    inputs = random_inputs(graph_interface(tosa), 0)
    return (observe_program(program, Npu.for_target_name(ALIKE_TARGET), inputs).operations,
            run_with_intermediates(tosa, inputs))


def _with_copy(operations: list[ObservedOp], of: int, after: int) -> list[ObservedOp]:
    """The operations with a store of operation `of`'s OFM again right after operation `after`
    (a copy Vela makes under a name of its own), later operations numbered on."""
    npu_ops = [op for op in operations if op.index >= 0]
    copy = dataclasses.replace(npu_ops[of], index=after + 1)
    later = [dataclasses.replace(op, index=op.index + 1) for op in npu_ops[after + 1:]]
    return [*npu_ops[:after + 1], copy, *later]


def test_departure_in_the_later_of_two_tensors_of_one_shape_names_its_operation() -> None:
    """resnet8 on U85-128: the stem convolution and the first block's first convolution store
    tensors of one shape. A corrupted bias of the block's convolution is named there, with
    its tensor, also when an operation between them stores the stem's tensor again: that one
    holds an earlier tensor exactly, so it is not compared with the next tensor of its shape
    (before, such a store was named departing, as NPU operation 15 of the Conformer on
    U55-128 was, which holds the first layer norm's output)."""
    needs_toolchain()
    product = compiled(ALIKE_MODEL, ALIKE_TARGET)
    partition = product_partitions(product)[0]
    rows = vela_partitions(product.directory / "vela_report.json")[0]["operators"]
    program = programs_in_pte(product.pte)[0]
    operation, offset = _conv_scale_source(program, nth=1)
    operations, reference = _observed_alike(_corrupted(program, offset + 2), partition.tosa)
    names = candidate_tensors([str(row["name"]) for row in rows], reference)
    stem, block = names[1], names[2]
    assert reference[stem].shape == reference[block].shape
    for observed, named in ((operations, operation),
                            (_with_copy(operations, 1, 1), operation + 1)):
        found = first_departure(partition.tosa, observed, names, reference,
                                stored_as(observed, [], partition.tosa))
        assert found is not None, "a corrupted bias went unnoticed"
        assert (found["operation"], found["tosa_tensor"]) == (named, block)
        assert found["command"] == "NPU_OP_CONV" and found["alike"][0] == block
        assert f"tensors of its shape next in order, {block}, " in describe_departure(found)


def test_an_ofm_holding_an_earlier_tensor_resumes_the_pairing_there() -> None:
    """An OFM holding a tensor the pairing ran past resumes it at the first tensor after that
    one no OFM held: the tensors skipped are compared again."""
    pairing = _Pairing()
    for position in (0, 1, 5):
        pairing.held(position)
    pairing.resume_after(2)
    assert pairing.start == 3
    pairing.resume_after(0)
    assert pairing.start == 3
