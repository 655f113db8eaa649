"""Write checks: an NPU operation writing over bytes another live tensor still holds is a
finding about the compiled program, named with the operation, scratch range and the tensor it
clobbers; `invoke verify` records it and says it in one sentence with the next step.
The known case is Vela 5.1.0's packed q/k/v attention on Ethos-U55-32 (the int32 MUL scratch
overrun stays inside the region there; on the other U55 configurations it leaves the region
and the model refuses it, test_npu_model_geometry.py). Exact programs report none."""

from __future__ import annotations

import pytest
from npu_model_support import compiled, needs_toolchain

from orchestrator.commands.verify import render
from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.clobber import check_writes
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.observe import observe_program
from orchestrator.npu_model.spans import span_bytes
from orchestrator.npu_model.verify import observation_refusal, random_inputs, verify_product
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions

pytestmark = pytest.mark.slow
PACKED = "npu_model_cases_geometry:attention_packed_qkv"
SEPARATE = "npu_model_archs:attention"
CLOBBERED_ON = "ethos-u55-32"


def _findings(model: str, target: str) -> list[dict[str, object]]:
    needs_toolchain()
    product = compiled(model, target)
    found = []
    for partition, program in zip(product_partitions(product), programs_in_pte(product.pte),
                                  strict=True):
        inputs = random_inputs(graph_interface(partition.tosa), 0)
        found += [c.to_json() for c in check_writes(program, Npu.for_target_name(target),
                                                     inputs)]
    return found


@pytest.mark.parametrize(("model", "target"), [("convnet", "ethos-u55-128"),
                                               ("add", "ethos-u55-128"),
                                               (SEPARATE, "ethos-u55-128"),
                                               (SEPARATE, CLOBBERED_ON)])
def test_exact_programs_write_over_no_live_tensor(model: str, target: str) -> None:
    assert _findings(model, target) == []


def test_packed_attention_mul_overrun_is_named_on_u55_32() -> None:
    findings = _findings(PACKED, CLOBBERED_ON)
    mul = [f for f in findings if f["command"] == "NPU_OP_ELEMENTWISE"]
    assert mul, f"the int32 MUL's overrun was not named: {findings}"
    start, end = mul[0]["scratch_range"]  # type: ignore[misc]
    assert end > start and "its own OFM" in str(mul[0]["clobbers"])
    # A POOL "over the v slice" was also named until the observer read the MUL's
    # depth-broadcast IFM2 as one channel: that finding was the checker's, not Vela's.
    assert all("its own OFM" in str(f["clobbers"]) for f in findings), findings


def test_verify_records_the_finding_and_says_it_in_one_sentence() -> None:
    needs_toolchain()
    product = compiled(PACKED, CLOBBERED_ON)
    report = verify_product(product, Npu.for_target_name(CLOBBERED_ON), PACKED, CLOBBERED_ON)
    document = report.to_json()
    assert not document["exact"] and document["write_findings"]
    assert document["departures"] and document["departures"][0]["operation"] is not None
    lines = [line for line in render(document).splitlines() if "the compiled program" in line]
    assert len(lines) == 1 and "next: split the packed projection" in lines[0]


def test_u85_observation_is_checked_not_refused() -> None:
    """The observer reports what each U85 operation stores (a transposed OFM as stored, a
    chained one as nothing in memory), so verify checks writes and localises there too; before
    it read addresses from the OFM registers and mv2 on ethos-u85-2048 drew 20 false findings
    (test_npu_model_u85_observe.py checks the U85 programs)."""
    needs_toolchain()
    product = compiled("convnet", "ethos-u85-128")
    report = verify_product(product, Npu.for_target_name("ethos-u85-128"), "convnet",
                            "ethos-u85-128")
    assert report.exact and report.write_findings == [] and report.departures == []
    assert report.observation_refused is None
    assert "not checked" not in render(report.to_json())


def test_an_npu_the_observer_does_not_describe_is_refused_in_one_line() -> None:
    refused = observation_refusal(Npu(arch=75, macs=256, cores=1))
    assert refused is not None and "not modelled for Ethos-U75-256" in refused
    assert "\n" not in refused
    assert observation_refusal(Npu.for_target_name("ethos-u85-2048")) is None


def test_a_broadcast_ifm2_is_read_once_along_its_broadcast_axis_on_u55() -> None:
    """On U55/U65 an elementwise IFM2 that NPU_SET_IFM2_BROADCAST broadcasts over channels is one
    channel in memory. The observer reported it over the IFM's depth, so bytes past it counted
    as read and a later write over them as a clobber: 5 false findings on MobileNetV2 (U55-128,
    exact outputs) and one on a Conformer feed-forward block under Vela 5.2.0."""
    needs_toolchain()
    target = "ethos-u55-128"
    product = compiled("npu_model_cases_geometry:channel_scale", target)
    (partition,), (program,) = product_partitions(product), programs_in_pte(product.pte)
    run = observe_program(program, Npu.for_target_name(target),
                          random_inputs(graph_interface(partition.tosa), 0))
    binary = [op for op in run.operations if op.name == "NPU_OP_ELEMENTWISE" and len(op.reads) == 2]
    assert binary, "no elementwise operation reading two feature maps"
    for op in binary:   # the 16 channels lie on whichever axis Vela chose; IFM2 has one
        ifm, ifm2 = (span_bytes(spans).size for _, spans in op.reads)
        assert ifm == 16 * ifm2, (op.index, ifm, ifm2, op.ofm_shape)
    assert _findings("npu_model_cases_geometry:channel_scale", target) == []
