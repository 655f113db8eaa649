"""Real compiles: each delegated partition's TOSA flatbuffer is stored with its interface, and
the shared reference-model runner executes it exactly (orchestrator/tosa)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from orchestrator.aot.tensors import load_array
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import Partition, product_partitions
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

pytestmark = pytest.mark.slow
NPU = "ethos-u55-128"


def _quantize(array: np.ndarray, partition: Partition, index: int) -> np.ndarray:
    q = partition.inputs[index].quantization
    assert q is not None
    steps = np.round(array / np.float32(q.scale)) + q.zero_point
    return np.clip(steps, q.quant_min, q.quant_max).astype(q.dtype)


@pytest.mark.parametrize("model", ["add", "convnet"])
def test_npu_product_stores_one_partition_per_delegate_call(compiled, model) -> None:
    product = compiled[(model, NPU)]
    partitions = product_partitions(product)
    assert partitions == product.partitions
    assert len(partitions) == product.manifest["delegation"]["delegated_partitions"] == 1
    partition = partitions[0]
    assert partition.tosa_path == product.directory / "partitions/0/partition.tosa"
    assert product.manifest["partitions"][0]["tosa_bytes"] == len(partition.tosa) > 0
    interface = graph_interface(partition.tosa)
    assert [t.tosa_name for t in partition.inputs] == [t.name for t in interface.inputs]
    assert len(partition.inputs) == len(product.inputs)
    for tensor, stored in zip(partition.inputs, product.inputs, strict=True):
        assert tensor.dtype == "int8" and tensor.shape == stored.shape
        assert tensor.quantization is not None and tensor.quantization.scale > 0
        assert tensor.name.startswith("cortex_m_quantize_per_tensor")
    [output] = partition.outputs
    assert output.dtype == "int8" and output.quantization is not None
    assert output.shape == product.reference_float[0].shape


@pytest.mark.parametrize("model", ["add", "convnet"])
def test_reference_model_runs_the_partition_within_a_step_of_the_fake_quantized_graph(
        compiled, model) -> None:
    product = compiled[(model, NPU)]
    [partition] = product.partitions
    inputs = [_quantize(load_array(r), partition, i) for i, r in enumerate(product.inputs)]
    [output] = run_tosa_flatbuffer(partition.tosa, inputs)
    q = partition.outputs[0].quantization
    assert q is not None and output.dtype == np.int8 and output.shape == partition.outputs[0].shape
    fake = load_array(product.reference_quantized[0])
    steps = np.round(fake / q.scale + q.zero_point).astype(np.int64)
    assert np.abs(output.astype(np.int64) - steps).max() <= 1
    assert np.array_equal(run_tosa_flatbuffer(partition.tosa, inputs)[0], output)


def test_cpu_only_product_has_no_partitions(compiled) -> None:
    assert compiled[("add", "cortex-m55")].partitions == []


def test_wrong_input_dtype_is_one_sentence(compiled) -> None:
    [partition] = compiled[("add", NPU)].partitions
    wrong = [np.zeros(t.shape, np.float32) for t in partition.inputs]
    with pytest.raises(OrchestratorError, match="TOSA reference model could not run"):
        run_tosa_flatbuffer(partition.tosa, wrong)


def test_missing_binding_names_the_package(compiled, monkeypatch) -> None:
    [partition] = compiled[("add", NPU)].partitions
    monkeypatch.setitem(sys.modules, "tosa_reference_model", None)
    with pytest.raises(OrchestratorError, match="pip install tosa-tools"):
        run_tosa_flatbuffer(partition.tosa, [])


def test_bytes_that_are_not_tosa_are_refused() -> None:
    with pytest.raises(OrchestratorError, match="not a TOSA flatbuffer"):
        graph_interface(b"\x00" * 7)
