"""The ExecuTorch runner for Ethos-U55/U65/U85 targets on QEMU, the NPU being the NPU
model behind the driver API (real compiles, real runtime + runner builds, real QEMU runs):
the real Ethos-U delegate runs add, convnet and mv2 (and mv2 on the dual-core Ethos-U65-512,
add/convnet/mv2 on Ethos-U85-128 on the same M55).
The delegate's int8 outputs must equal
the TOSA reference model's, bit for bit, for the same quantized inputs; the result names the
NPU model and carries no NPU timing. Needs the upstream sources (skips without)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from orchestrator.aot.products import Product, load_product
from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import Scratch
from orchestrator.npu_model.verify import model_inputs
from orchestrator.protocol.stream import parse_text
from orchestrator.results import RunResult, Status
from orchestrator.runner.reference_check import device_arrays
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]

TARGET = "ethos-u55-128"


def run_on_model(work: Scratch, sources: dict[str, Any], model: str, target: str = TARGET
                 ) -> RunResult:
    return execute(RunRequest(target=target, app="runner", sim="qemu", model=model,
                              timeout_s=300.0, idle_timeout_s=120.0,
                              runner=RunnerSettings(sources=sources)), work)


def product_of(result: RunResult) -> Product:
    product = load_product(Path(result.target.options["product"]))
    assert product is not None
    return product


def tosa_outputs_dequantized(product: Product) -> list[np.ndarray[Any, Any]]:
    """The single partition on the TOSA reference model for the model's own inputs (quantized
    as the program's quantize op does), dequantized as its dequantize op does (float32)."""
    (partition,) = product_partitions(product)
    interface = graph_interface(partition.tosa)
    inputs = model_inputs(product, partition, interface)
    assert inputs is not None, "the partition does not read the model's inputs directly"
    outputs = []
    for raw, tensor in zip(run_tosa_flatbuffer(partition.tosa, inputs), partition.outputs,
                           strict=True):
        quant = tensor.quantization
        assert quant is not None
        values = (raw.astype(np.int32) - quant.zero_point).astype(np.float32)
        outputs.append(values * np.float32(quant.scale))
    return outputs


@pytest.fixture(scope="module", params=["add", "convnet", "mv2"])
def model_run(request: pytest.FixtureRequest, runner_scratch: Scratch,
              runtime_sources: dict[str, Any]) -> tuple[str, RunResult]:
    return request.param, run_on_model(runner_scratch, runtime_sources, request.param)


def test_runner_runs_the_delegate_on_the_npu_model(model_run: tuple[str, RunResult]
                                                          ) -> None:
    model, result = model_run
    assert result.target.simulator == "qemu"
    assert result.target.options["build_key"].startswith("runner-mps3-an547-ethos-u55-128-")
    npu = result.npu
    assert npu is not None and npu.executor == "npu-model"
    assert npu.executor_version is not None and npu.executor_version.startswith("npu_model")
    assert npu.cycles is None and npu.counters == [] and (npu.delegations or 0) >= 1
    # the M55's count includes the model emulating the NPU: labelled, never NPU or CPU timing
    assert result.cpu is not None and result.cpu.includes_npu_model is True
    assert result.simulation.exit_code == 0 and result.comparison is not None
    # Judged against the exact reference (the partition's TOSA graph on the TOSA reference
    # model): bit for bit, mv2 included, whatever PyTorch's quantized graph says.
    assert result.status is Status.PASS, result.reason
    assert result.comparison.passed and result.comparison.reference == "exact", model
    assert result.comparison.exact is True and result.comparison.mismatches == 0, model


def test_outputs_equal_the_tosa_reference_bit_for_bit(model_run: tuple[str, RunResult]) -> None:
    model, result = model_run
    product = product_of(result)
    stream = parse_text(Path(result.artifacts["transcript"]).read_text())
    references = product.reference
    device = device_arrays(stream.tensors, [tuple(r.dim_order) for r in references])
    expected = tosa_outputs_dequantized(product)
    assert len(device) == len(expected)
    for got, want in zip(device, expected, strict=True):
        if got.shape != want.shape and want.ndim == 4:
            want = want.transpose(0, 3, 1, 2)   # TOSA NHWC -> the program's NCHW
        assert got.dtype == np.float32
        assert np.array_equal(got.reshape(want.shape), want), model


@pytest.fixture(scope="module")
def dual_core_run(runner_scratch: Scratch, runtime_sources: dict[str, Any]) -> RunResult:
    return run_on_model(runner_scratch, runtime_sources, "mv2", target="ethos-u65-512")


def test_mv2_on_the_dual_core_u65_512_is_exact(dual_core_run: RunResult) -> None:
    """Ethos-U65-512 (two cores of 256 MACs: weight and scale streams per core) through the
    runner on QEMU: the NPU model built for that configuration, outputs bit for bit."""
    result = dual_core_run
    assert result.target.options["build_key"].startswith("runner-mps3-an547-ethos-u65-512-")
    assert result.npu is not None and result.npu.executor == "npu-model"
    assert result.status is Status.PASS, result.reason
    assert result.comparison is not None and result.comparison.reference == "exact"
    assert result.comparison.exact is True and result.comparison.mismatches == 0


U85_TARGET = "ethos-u85-128"
# What the model does not execute yet through the runner on U85 (strict xfail naming it).
U85_NOT_YET: dict[str, str] = {}


@pytest.fixture(scope="module", params=["add", "convnet", "mv2"])
def u85_run(request: pytest.FixtureRequest, runner_scratch: Scratch,
            runtime_sources: dict[str, Any]) -> tuple[str, RunResult]:
    """An Ethos-U85-128 program through the real delegate on QEMU: mps3-an547's Cortex-M55
    runs it (QEMU has no Corstone-320), the NPU model built for U85-128."""
    return request.param, run_on_model(runner_scratch, runtime_sources, request.param,
                                       target=U85_TARGET)


def test_u85_run_is_placed_on_the_m55_and_says_so(u85_run: tuple[str, RunResult]) -> None:
    model, result = u85_run
    assert result.target.options["build_key"].startswith("runner-mps3-an547-ethos-u85-128-")
    assert result.npu is not None and result.npu.executor == "npu-model", model
    assert result.npu.cycles is None and result.npu.counters == []
    assert result.target.options["cpu"] == "cortex-m55"
    assert "not ethos-u85-128's own cortex-m85" in result.target.options["cpu_note"]


def test_u85_outputs_are_exact(request: pytest.FixtureRequest,
                               u85_run: tuple[str, RunResult]) -> None:
    model, result = u85_run
    if model in U85_NOT_YET:
        request.applymarker(pytest.mark.xfail(strict=True, reason=U85_NOT_YET[model]))
    assert result.status is Status.PASS, result.reason
    assert result.comparison is not None and result.comparison.reference == "exact", model
    assert result.comparison.exact is True and result.comparison.mismatches == 0, model
