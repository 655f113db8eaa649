"""verify's partition interface for delegates with several inputs: a partition reading three
tensors runs with all three in their slots, and each partition is paired with its own command
stream by its interface (the .pte keeps the delegates' data in an order of its own: the
Conformer on U55 failed "the delegate takes 3 inputs, got 1" when paired by position)."""

from __future__ import annotations

import pytest
from npu_model_support import compiled, needs_toolchain

from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.verify import paired_programs, verify_product
from orchestrator.tosa.partitions import product_partitions

pytestmark = pytest.mark.slow
THREE = "npu_model_multi_input:three_inputs"
TARGET = "ethos-u55-128"


def test_a_partition_with_three_inputs_is_exact() -> None:
    needs_toolchain()
    product = compiled(THREE, TARGET)
    [partition] = product_partitions(product)
    [program] = programs_in_pte(product.pte)
    assert len(partition.inputs) == len(program.inputs) == 3
    report = verify_product(product, Npu.for_target_name(TARGET), THREE, TARGET)
    assert report.exact and {check.inputs for check in report.checks} == {
        "model", "random-0", "random-1"}
    assert report.write_findings == []


def test_partitions_take_their_own_streams_whatever_the_pte_order() -> None:
    needs_toolchain()
    three, one = compiled(THREE, TARGET), compiled("convnet", TARGET)
    partitions = product_partitions(three) + product_partitions(one)
    programs = programs_in_pte(three.pte) + programs_in_pte(one.pte)
    assert paired_programs(partitions, programs[::-1]) == programs
    assert paired_programs(partitions[:1], programs[1:]) == [None]
