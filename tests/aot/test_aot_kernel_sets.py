"""The runner's kernel sets on the built-in models, compiled for real: which portable ops each
program needs, how a growing set grows with a new model, that nothing is reconfigured when a
model brings nothing new, and the missing-kernel refusal of a pinned set. The op table comes
from the installed executorch package's functions.yaml (the source mapping needs sources)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from aot_cases import needs_executorch

from orchestrator.aot import compile_many, request_for
from orchestrator.aot.lower.kernels import executorch_root
from orchestrator.firmware.build.toolchain import Compilers
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices
from orchestrator.runner.config import kernel_ops
from orchestrator.runner.kernel_set import (
    MODEL,
    cmake_ops,
    portable_kernels,
    selected_ops,
    write_grown,
)
from orchestrator.runner.runtime import RuntimeConfig, configure_args, resolve_ops
from orchestrator.runner.sources import RuntimeSources

pytestmark = pytest.mark.slow
GCC = Compilers(Path("/opt/gcc/bin/arm-none-eabi-gcc"), Path("/opt/gcc/bin/arm-none-eabi-g++"),
                "cortex-m55")


def operators(product) -> tuple[str, ...]:
    methods = product.manifest["program"]["methods"]
    return tuple(sorted({op for method in methods.values() for op in method["operators"]}))


@pytest.fixture(scope="module")
def wheel() -> Path:
    needs_executorch()
    root = executorch_root()
    assert root is not None
    return root


@pytest.fixture(scope="module")
def float_ops(aot_scratch) -> dict[str, tuple[str, ...]]:
    """add and convnet compiled float for cortex-m55 (every op on portable kernels)."""
    needs_executorch()
    requests = [request_for(model, "cortex-m55", CompileChoices(quantize="none"))
                for model in ("add", "convnet")]
    items = compile_many(requests, aot_scratch, keep_going=False)
    return {item.request.model.name: operators(item.product) for item in items}


def test_int8_cortex_m_programs_need_no_portable_kernel(compiled, wheel):
    table = portable_kernels(wheel)
    for model in ("add", "convnet"):
        ops = operators(compiled[(model, "cortex-m55")])
        assert ops and all(op.startswith("cortex_m::") for op in ops), ops
        chosen = selected_ops(MODEL, ops, (), table)
        assert chosen == () and cmake_ops(chosen) == "NONE"


def test_float_programs_need_their_aten_ops(float_ops, wheel):
    table = portable_kernels(wheel)
    assert table.portable(float_ops["add"]) == {"aten::add.out"}
    convnet = table.portable(float_ops["convnet"])
    assert {"aten::convolution.out", "aten::relu.out"} <= convnet
    assert "aten::add.out" not in convnet


def test_the_set_grows_by_the_new_model_only(float_ops, wheel, tmp_path):
    table = portable_kernels(wheel)
    first = selected_ops(MODEL, float_ops["convnet"], (), table)
    grown = selected_ops(MODEL, float_ops["add"], first, table)
    assert set(grown) - set(first) == {"aten::add.out"}
    assert selected_ops(MODEL, float_ops["add"], grown, table) == grown
    assert selected_ops(MODEL, float_ops["convnet"], grown, table) == grown


def test_no_reconfigure_when_a_model_brings_nothing_new(float_ops, wheel, tmp_path):
    sources = RuntimeSources(wheel, tmp_path / "cmsis-nn")
    build_dir = tmp_path / "build" / "runtime"
    build_dir.mkdir(parents=True)

    def args_for(model: str) -> list[str]:
        config = RuntimeConfig("cortex-m55", "Release", "model", MODEL, float_ops[model])
        ops, files = resolve_ops(config, sources, build_dir)
        write_grown(build_dir, ops, files)   # as build_runtime does after a build
        return configure_args(RuntimeConfig("cortex-m55", "Release", "model", ops),
                              sources, GCC, build_dir, files)

    first = args_for("convnet")
    grown = args_for("add")
    assert grown != first and "-DET_KERNEL_OPS=" in " ".join(grown)
    assert args_for("convnet") == grown and args_for("add") == grown


def test_a_pinned_set_refuses_a_model_with_an_op_it_lacks(wheel, tmp_path):
    sources = RuntimeSources(wheel, tmp_path / "cmsis-nn")
    assert "aten::cumsum.out" not in kernel_ops("common")
    config = RuntimeConfig("cortex-m55", "Release", "common", kernel_ops("common"),
                           ("aten::cumsum.out", "aten::add.out", "cortex_m::quantized_add.out"))
    with pytest.raises(OrchestratorError) as caught:
        resolve_ops(config, sources, tmp_path)
    assert caught.value.cause.endswith("kernel set common does not have: aten::cumsum.out")
    assert "--kernel-set model" in caught.value.next_step


@pytest.mark.needs_sources
def test_every_portable_op_maps_to_the_sources_that_define_it():
    root = os.environ.get("ETHOSU_ORCH_TEST_SOURCES")
    if not root or not (Path(root) / "executorch" / "kernels" / "portable" / "cpu").is_dir():
        pytest.skip("needs ExecuTorch sources (set ETHOSU_ORCH_TEST_SOURCES)")
    table = portable_kernels(Path(root) / "executorch")
    assert all(table.files.values()), [op for op, files in table.files.items() if not files]
    assert table.sources(["aten::add.out", "aten::_native_batch_norm_legit_no_training.out",
                          "dim_order_ops::_to_dim_order_copy.out"]) == (
        "op__to_dim_order_copy.cpp", "op_add.cpp", "op_native_batch_norm.cpp")
