"""The torch-free configuration's parts against executorch's own: Vela's flags as
EthosUCompileSpec lists them, a template packed back to its bytes, a program configured with
blobs and compile specs of any length as executorch's deserialize + serialize gives it, and a
template the parts do not reproduce left to executorch's path."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest
from aot_cases import needs_executorch

from orchestrator.aot import request_for
from orchestrator.aot.assembly.assemble import CONFIGURATION_SPECS, assemble
from orchestrator.aot.assembly.configure import reproducible_template
from orchestrator.aot.lower.lowering import ethosu_compile_spec
from orchestrator.aot.lower.store import TEMPLATE_MANIFEST, Lowering, load_lowering, lowered_root
from orchestrator.aot.options import CompileOptions
from orchestrator.aot.products import Product
from orchestrator.aot.pte_program import configure_pte, read_pte, write_pte
from orchestrator.aot.vela_direct import configuration_specs
from orchestrator.foundation.paths import Scratch
from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow
NPU_CASES = [("add", "ethos-u55-128"), ("add", "ethos-u85-128"), ("convnet", "ethos-u55-128"),
             ("convnet", "ethos-u85-128")]


def _lowering(compiled: dict[tuple[str, str], Product], aot_scratch: Scratch, model: str,
              target: str) -> Lowering:
    assert (model, target) in compiled
    found = load_lowering(lowered_root(aot_scratch.models)
                          / request_for(model, target).lowering_key())
    assert found is not None
    return found


def test_vela_flags_are_the_compile_specs_executorch_makes() -> None:
    needs_executorch()
    targets = [t.name for t in load_catalogue().targets.values() if t.has_npu]
    choices = [{}, {"memory_mode": "Sram_Only", "system_config": "Ethos_U85_SYS_Flash_High"},
               {"vela_flags": ("--optimise", "Size")}, {"vela_config": "other.ini"}]
    with warnings.catch_warnings():   # importing executorch warns (deprecations)
        warnings.simplefilter("ignore")
        for target in targets:
            for chosen in choices:
                options = CompileOptions(target, **chosen)   # type: ignore[arg-type]
                theirs = {spec.key: bytes(spec.value)
                          for spec in ethosu_compile_spec(options, None)._to_list()
                          if spec.key in CONFIGURATION_SPECS}
                assert configuration_specs(options) == theirs, (target, chosen)


@pytest.mark.parametrize(("model", "target"), NPU_CASES)
def test_a_template_packs_back_to_its_own_bytes(compiled, aot_scratch, model, target) -> None:
    needs_executorch()
    template = _lowering(compiled, aot_scratch, model, target).template_pte.read_bytes()
    assert write_pte(read_pte(template)) == template


@pytest.mark.parametrize("sizes", [(1, 5), (37, 100), (4099, 3), (16, 16)])
@pytest.mark.parametrize(("model", "target"), [("add", "ethos-u55-128"),
                                               ("convnet", "ethos-u85-128")])
def test_a_configured_program_is_the_one_executorch_serializes(
        compiled, aot_scratch, model, target, sizes) -> None:
    needs_executorch()
    lowering = _lowering(compiled, aot_scratch, model, target)
    blob_size, flags_size = sizes
    binaries = [bytes(range(256)) * (blob_size // 256) + b"\x5a" * (blob_size % 256)]
    configuration = {"compile_flags": b"-" * flags_size, "target": b"ethos-u85-2048"}
    template = lowering.template_pte.read_bytes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs, _program = assemble(template, lowering.delegate_partitions, binaries,
                                    configuration)
    ours = read_pte(template)
    configure_pte(ours, lowering.delegate_partitions, binaries, configuration)
    assert write_pte(ours) == theirs


def test_a_template_the_parts_do_not_reproduce_is_left_to_executorch(
        compiled, aot_scratch, tmp_path: Path) -> None:
    needs_executorch()
    lowering = _lowering(compiled, aot_scratch, "add", "ethos-u55-128")
    assert reproducible_template(lowering) is not None
    copy = tmp_path / lowering.key
    shutil.copytree(lowering.directory, copy)
    manifest = json.loads((copy / TEMPLATE_MANIFEST).read_text())
    manifest["options"]["memory_mode"] = "Sram_Only"   # not what the template was made with
    (copy / TEMPLATE_MANIFEST).write_text(json.dumps(manifest))
    moved = load_lowering(copy)
    assert moved is not None and reproducible_template(moved) is None
    (copy / lowering.template_pte.name).write_bytes(b"\0" * 64)
    assert reproducible_template(moved) is None
