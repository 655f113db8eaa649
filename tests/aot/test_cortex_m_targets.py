"""Every Cortex-M CPU upstream lists compiles here through upstream's own Cortex-M path with
that CPU's target config: the product records CPU, ISA and CMSIS-NN backend, and its program
(operators, CMSIS-NN scratch buffer sizes, memory plan) equals what ExecuTorch v1.4.1's
aot_arm_compiler._to_edge_cortex_m makes for the same target config, on a model with conv,
depthwise conv, linear, add and pooling. Needs executorch, not the upstream sources."""

from __future__ import annotations

import argparse
import importlib.util
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from aot_cases import MODEL_FILES, needs_executorch

from orchestrator.aot import compile_request, request_for
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.options.compile import CompileChoices
from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow
MODEL = MODEL_FILES / "cmsis_mix.py"
CPUS = [target.name for target in load_catalogue() if target.cpu_spec is not None]
OVERRIDES = [("cortex-m55", "dsp"), ("cortex-m55", "scalar"), ("cortex-m33", "scalar")]
# In CI a slice: one core per CMSIS-NN backend (soft-float scalar, DSP, MVE) and an ISA
# override; every other CPU under -m sweep (each case is two real compiles).
CI_SLICE = {("cortex-m0", None), ("cortex-m4", None), ("cortex-m55", None), ("cortex-m55", "dsp")}
CASES = [pytest.param(cpu, isa, marks=() if (cpu, isa) in CI_SLICE else pytest.mark.sweep)
         for cpu, isa in [(cpu, None) for cpu in CPUS] + OVERRIDES]
BACKEND = {"cortex-m0": "SCALAR", "cortex-m0plus": "SCALAR", "cortex-m3": "SCALAR",
           "cortex-m23": "SCALAR", "cortex-m4": "DSP", "cortex-m7": "DSP", "cortex-m33": "DSP",
           "cortex-m35p": "DSP", "cortex-m55": "MVE", "cortex-m85": "MVE"}


@contextmanager
def upstream_warnings_ignored() -> Iterator[None]:
    """Upstream's modules warn on import (deprecations); the compile stage ignores them too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield

KERNELS = {f"cortex_m::{op}.out" for op in (
    "quantize_per_tensor", "quantized_conv2d", "quantized_depthwise_conv2d", "quantized_add",
    "quantized_avg_pool2d", "quantized_max_pool2d", "quantized_linear", "dequantize_per_tensor")}


def test_every_cpu_upstream_lists_is_a_target() -> None:
    needs_executorch()
    with upstream_warnings_ignored():
        from executorch.backends.arm.scripts.aot_arm_compiler import TARGETS

    assert sorted(CPUS) == sorted(t for t in TARGETS if t.startswith("cortex-m"))
    assert {cpu: load_catalogue().target(cpu).cpu_spec.cmsis_nn.upper()  # type: ignore[union-attr]
            for cpu in CPUS} == BACKEND


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    needs_executorch()
    return scratch(tmp_path_factory.mktemp("cortex-m")).ensure()


def _signature(program: Any) -> dict[str, Any]:
    """Per instruction: the kernel and the sizes of its uint8 (CMSIS-NN scratch) tensors;
    with the method's memory plan."""
    plan = program.execution_plan[0]
    kernels = []
    for instruction in plan.chains[0].instructions:
        args = getattr(instruction.instr_args, "args", None)
        if args is None:
            continue
        operator = plan.operators[instruction.instr_args.op_index]
        scratch_sizes = [list(plan.values[i].val.sizes) for i in args
                         if hasattr(plan.values[i].val, "sizes")
                         and plan.values[i].val.scalar_type.name == "BYTE"]
        kernels.append((f"{operator.name}.{operator.overload}", scratch_sizes))
    return {"kernels": kernels, "planned": list(plan.non_const_buffer_sizes)}


def _upstream_program(cpu: str, isa: str | None) -> Any:
    """The program upstream's compiler script makes for `cpu` (its Cortex-M path)."""
    with upstream_warnings_ignored():
        return _upstream_compile(cpu, isa)


def _upstream_compile(cpu: str, isa: str | None) -> Any:
    import torch
    from executorch.backends.arm.scripts import aot_arm_compiler as upstream
    from executorch.backends.cortex_m.library import cmsis_nn
    from executorch.backends.cortex_m.target_config import CortexMTargetConfig
    from executorch.exir import ExecutorchBackendConfig

    loaded = _model_module()
    config = CortexMTargetConfig.from_target_string(cpu)
    if isa:
        config = CortexMTargetConfig(cpu=config.cpu, isa=getattr(cmsis_nn.Backend, isa.upper()))
    # Exported channels-last, as upstream's cortex_m tests do (and the compile stage): the
    # script's main() exports the contiguous model first, whose convolutions the
    # CortexMQuantizer then leaves in float.
    model = loaded.ModelUnderTest.to(memory_format=torch.channels_last)
    inputs = tuple(x.to(memory_format=torch.channels_last) if x.dim() == 4 else x
                   for x in loaded.ModelInputs)
    exported = torch.export.export(model, inputs, strict=True)
    args = argparse.Namespace(quantize=True, strict_export=True, delegate=False)
    # upstream main() passes exported_program.module(); torch 2.13 adds a guard call_module
    # that edge lowering rejects, so (as the compile stage does) without the guard check
    _, edge, _ = upstream._to_edge_cortex_m(exported, args, exported.module(check_guards=False),
                                            inputs, None, config)
    manager = edge.to_executorch(config=ExecutorchBackendConfig(extract_delegate_segments=False))
    return manager.executorch_program


def _model_module() -> Any:
    """The model file imported as a module of its own (torch.export needs one)."""
    spec = importlib.util.spec_from_file_location("cmsis_mix_upstream", MODEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _product_program(path: Path) -> Any:
    with upstream_warnings_ignored():
        from executorch.exir._serialize._program import deserialize_pte_binary

        loaded = deserialize_pte_binary(path.read_bytes())
    return getattr(loaded, "program", loaded)


@pytest.mark.parametrize(("cpu", "isa"), CASES)
def test_compile_equals_upstream_for_the_cpu(work: Scratch, cpu: str, isa: str | None) -> None:
    choices = CompileChoices(isa=isa) if isa else None
    product = compile_request(request_for(str(MODEL), cpu, choices), work)
    record = product.manifest["cortex_m"]
    assert (record["cpu"], record["isa_override"]) == (cpu, isa)
    assert record["cmsis_nn_backend"] == (isa.upper() if isa else BACKEND[cpu])
    assert product.manifest["options"].get("isa") == isa
    ours = _signature(_product_program(product.pte))
    assert KERNELS <= {name for name, _ in ours["kernels"]}
    assert ours == _signature(_upstream_program(cpu, isa))


def test_scratch_sizes_follow_the_backend(work: Scratch) -> None:
    """The target config reaches the passes: MVE, DSP and scalar convolutions ask CMSIS-NN
    for different scratch buffers."""
    sizes = {}
    for cpu in ("cortex-m3", "cortex-m4", "cortex-m55"):
        program = _product_program(compile_request(request_for(str(MODEL), cpu), work).pte)
        sizes[cpu] = _signature(program)["kernels"]
    assert len({repr(kernels) for kernels in sizes.values()}) > 1, sizes


@pytest.mark.parametrize(("cpu", "isa", "cause"), [
    ("cortex-m4", "mve", "cortex-m4 cannot execute CMSIS-NN's MVE kernels"),
    ("cortex-m0", "dsp", "cortex-m0 cannot execute CMSIS-NN's DSP kernels"),
    ("cortex-m4", "scalar", "GCC cannot build cortex-m4 firmware without DSP"),
    ("cortex-m55", "neon", "unknown ISA 'neon'"),
    ("ethos-u55-128", "dsp", "has an NPU"),
])
def test_an_isa_the_core_cannot_execute_is_refused(cpu: str, isa: str, cause: str) -> None:
    with pytest.raises(OrchestratorError) as raised:
        request_for(str(MODEL), cpu, CompileChoices(isa=isa))
    assert cause in raised.value.cause and "\n" not in raised.value.cause
    assert raised.value.next_step.startswith("invoke compile --target")
