"""Helpers of the NPU-model tests (unique module name): compile a case (cached), verify it,
check the decoder against Vela's listing."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from orchestrator.aot import Product, compile_request, request_for
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.npu_model.coverage_gen import sdist_reader
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.listing import model_listing, vela_args, vela_listing
from orchestrator.npu_model.regor_fields import family_commands
from orchestrator.npu_model.regor_source import vela_sdist
from orchestrator.npu_model.stream_values import Value, stream_values
from orchestrator.npu_model.verify import VerifyReport, npu_delegates, verify_product
from orchestrator.options.compile import CompileChoices

U55_U65_TARGETS = ("ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256",
                   "ethos-u65-256", "ethos-u65-512")
U85_TARGETS = ("ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024",
               "ethos-u85-2048")
SCRATCH_VARIABLE = "ETHOSU_ORCH_TEST_NPU_MODEL_SCRATCH"


def u85_cases(names: list[str], default_target: str) -> list[object]:
    """(name, target) params of every name on every U85 configuration: `default_target` by
    default, the other four with -m sweep."""
    return [pytest.param(name, target, id=f"{name}-{target}",
                         marks=[] if target == default_target else [pytest.mark.sweep])
            for name in names for target in U85_TARGETS]


def needs_toolchain() -> None:
    """Skip (one line) without torch/executorch or the TOSA reference model."""
    for module in ("torch", "executorch.backends.arm", "tosa_reference_model"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not installed (pip install -e '.[aot]')")


def test_scratch() -> Scratch:
    """Compiles are cached across sessions: the repo's scratch/ unless the variable names one."""
    root = os.environ.get(SCRATCH_VARIABLE)
    return scratch(Path(root) if root else None).ensure()


def compiled(model: str, target: str, quantize: str = "int8",
             memory_mode: str | None = None) -> Product:
    choices = CompileChoices(quantize=quantize, memory_mode=memory_mode)
    return compile_request(request_for(model, target, choices), test_scratch())


def verified(model: str, target: str, quantize: str = "int8") -> VerifyReport:
    product = compiled(model, target, quantize)
    if not product.manifest.get("partitions"):
        pytest.skip(f"{model} is not delegated to the NPU for {target} (runs on the CPU)")
    return verify_product(product, Npu.for_target_name(target), model, target)


def family_of(target: str) -> str:
    """The coverage table's family of a target name: u55u65 or u85."""
    return "u85" if target.startswith("ethos-u85") else "u55u65"


def written_values(model: str, target: str, quantize: str = "int8") -> set[Value]:
    """Every (command, enum field, member) the compiled streams of `model` write."""
    layout = family_commands(family_of(target), sdist_reader(vela_sdist()))
    product = compiled(model, target, quantize)
    return {value for _p, program in npu_delegates(product, model, target)
            for value in stream_values(program.cmd_data, layout)}


def assert_exact(report: VerifyReport) -> None:
    bad = [c.to_json() for c in report.checks if not c.exact]
    assert report.exact, f"{report.model} on {report.target}: {bad}"


def assert_listing_matches_vela(product: Product) -> None:
    """Every command of every delegate decodes as Vela lists it. Each partition's stream is
    the one verify pairs with it: the .pte keeps delegate data in an order of its own (div_int32
    on ethos-u55-32: the second partition's stream first), so file order is not partition
    order."""
    if not product.manifest.get("partitions"):
        return
    args = vela_args(product.manifest)
    model, target = (str(product.manifest.get(key)) for key in ("model", "target"))
    for partition, program in npu_delegates(product, model, target):
        ours = model_listing(program.cmd_data)
        theirs = vela_listing(partition.tosa_path, args)
        assert theirs, "Vela printed no command listing"
        assert ours == theirs, f"partition {partition.index}: our listing differs from Vela's"


def check_case(model: str, target: str, quantize: str = "int8") -> None:
    """The sweep's check of one case: every command decodes as Vela lists it, and every NPU
    partition is bit-exact against the TOSA reference."""
    needs_toolchain()
    assert_listing_matches_vela(compiled(model, target, quantize))
    assert_exact(verified(model, target, quantize))


def check_value_reached(model: str, target: str, value: Value, quantize: str = "int8") -> None:
    """A value's compiled test: `model`'s streams write `value` and the case is exact."""
    needs_toolchain()
    assert value in written_values(model, target, quantize), f"{model}: no {value} on {target}"
    check_case(model, target, quantize)
