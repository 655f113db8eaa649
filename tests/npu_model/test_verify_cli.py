"""`invoke verify`'s own flow (compile cached, every partition checked, JSON verdict): a16w8
chosen by --quantize, Vela flags by --vela-flags (verify takes every compile choice), the
verdict records what produced it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import npu_model_support
import pytest
from npu_model_support import needs_toolchain

from orchestrator.commands.verify import verify_command
from orchestrator.foundation.paths import SCRATCH_ENV
from orchestrator.npu_model.clobber import NEXT_STEP
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.verify import verify_product
from orchestrator.options.compile import CompileChoices, CompileTask
from orchestrator.options.fields import cli_specs
from orchestrator.options.inspect import VerifyTask
from orchestrator.tosa.random_inputs import WIDE_INPUT_RANGE, random_range

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_verify_a16w8_json_names_quantization_and_versions(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    needs_toolchain()
    monkeypatch.setenv(SCRATCH_ENV, str(npu_model_support.test_scratch().root))
    task = VerifyTask(model="add", target="ethos-u55-128",
                      choices=CompileChoices(quantize="a16w8"))
    assert verify_command(task, json=True) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["exact"] is True and document["quantize"] == "a16w8"
    assert document["npu"]["config"] == "Ethos-U55-128"
    assert document["versions"]["ethos-u-vela"] == "5.1.0"
    assert document["versions"]["npu_model"].startswith("npu_model ")
    assert all(check["exact"] for check in document["checks"])
    assert document["departures"] == [] and document["write_findings"] == []


@pytest.mark.slow
def test_verify_names_nested_inputs_and_outputs_by_path() -> None:
    """The verify document's model_interface, from the compiled product; the model computes
    `lengths * 2` on an int32 input, exact on random inputs drawn from the int16 range (over the
    whole int32 range it overflows, which TOSA leaves undefined), and the JSON says so."""
    from orchestrator.aot.api import compile_model
    from orchestrator.commands.verify import model_interface

    needs_toolchain()
    model = ROOT / "tests" / "aot" / "models" / "nested_io.py"
    product = compile_model(str(model), "ethos-u85-128", CompileChoices(),
                            scratch_root=npu_model_support.test_scratch().root)
    report = verify_product(product, Npu.for_target_name("ethos-u85-128"), str(model),
                            "ethos-u85-128")
    assert report.exact, report.to_json()["checks"]
    assert report.to_json()["random_input_ranges"] == {"int32": [-32768, 32767],
                                                       "int8": [-128, 127]}
    interface = model_interface(product)
    assert [(leaf["name"], leaf["dtype"]) for leaf in interface["inputs"]] == [
        ("inputs[0]", "float32"), ("inputs[1][0]", "float32"), ("inputs[1][1][0]", "float32"),
        ("inputs[1][1][1]", "int32")]
    assert [leaf["name"] for leaf in interface["outputs"]] == [
        "output['y']", "output['state'][0][0]", "output['state'][0][1]", "output['state'][1]"]


def test_random_inputs_keep_8_and_16_bit_ranges_and_narrow_wider_integers() -> None:
    assert random_range("int8") == (-128, 127) and random_range("uint8") == (0, 255)
    assert random_range("int16") == (-32768, 32767)
    assert random_range("int32") == WIDE_INPUT_RANGE == (-32768, 32767)
    assert random_range("uint32") == (0, 32767) and random_range("int64") == WIDE_INPUT_RANGE


def test_the_write_finding_next_step_names_flags_verify_takes() -> None:
    flags = set(re.findall(r"invoke verify ((?:--[a-z-]+)(?: '[^']*')?)", NEXT_STEP))
    assert flags, NEXT_STEP
    known = {spec.flag for spec in cli_specs(VerifyTask)}
    assert {flag.split()[0] for flag in flags} <= known


def test_verify_takes_every_compile_choice() -> None:
    verify = {spec.flag for spec in cli_specs(VerifyTask)}
    assert {spec.flag for spec in cli_specs(CompileChoices)} <= verify
    # --bundle writes a .bpte beside the product: an output of compile, not a choice
    assert {spec.flag for spec in cli_specs(CompileTask)} - {"--bundle"} <= verify


@pytest.mark.slow
def test_verify_compiles_with_the_vela_flags_given(tmp_path: Path) -> None:
    """Through the real CLI: the next step of a write finding, as typed, compiles with it."""
    needs_toolchain()
    env = {**os.environ, SCRATCH_ENV: str(npu_model_support.test_scratch().root)}
    done = subprocess.run([sys.executable, "-m", "invoke", "verify", "--model", "add",
                           "--target", "ethos-u85-128", "--vela-flags", "--optimise Size",
                           "--json"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["compile_options"]["vela_flags"] == ["--optimise", "Size"]
    assert document["exact"] is True
