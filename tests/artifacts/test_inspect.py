"""`invoke inspect`: artifacts made by executorch's own APIs are read without torch (targets,
compile specs, OPTIMIZER_CONFIG, edge quantization, test suites) and every reason the pinned
runtime cannot run one is named; bad files are one sentence."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.artifacts.bundle import read_bundle, write_bundle
from orchestrator.artifacts.ethosu import ethosu_delegate
from orchestrator.artifacts.inspection import inspect_artifact, refusal_reasons
from orchestrator.artifacts.program import read_program
from orchestrator.foundation.errors import OrchestratorError

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(("key", "product", "mode"), [
    ("ethos-u55-128", "Ethos-U55", "Shared_Sram"), ("ethos-u85-128", "Ethos-U85", "Sram_Only")])
def test_ethosu_program_is_read(foreign: dict[str, Path], key: str, product: str,
                                mode: str) -> None:
    inspection = inspect_artifact(foreign[key])
    document = inspection.to_dict()
    assert inspection.kind == "program" and inspection.runnable, inspection.reasons
    assert document["targets"] == [key]
    method = document["methods"][0]
    assert method["inputs"][0]["shape"] == [1, 3, 8, 8]
    assert method["inputs"][0]["quantization"]["dtype"] == "int8"
    assert method["outputs"][0]["quantization"]["scale"] > 0
    assert {op["library"] for op in method["operators"]} == {"cortex_m"}
    facts = method["delegates"][0]["ethos_u"]
    assert facts["optimizer_config"] == {"product": product, "macs": 128, "target": key,
                                         "cmd_stream_version": 1 if "85" in key else 0}
    assert facts["memory_mode"] == mode and facts["vela_flags"] == ["--verbose-operators"]
    assert facts["scratch_bytes"] > 0 and facts["weight_bytes"] > 0
    assert method["planned_bytes"] > 0


def test_bundle_cases_and_writer_match_upstream(foreign: dict[str, Path]) -> None:
    data = foreign["bundled"].read_bytes()
    bundle = read_bundle(data)
    assert [(s.method, len(s.cases)) for s in bundle.suites] == [("forward", 3)]
    case = bundle.suites[0].cases[0]
    assert case.inputs[0].dtype == "float32" and len(case.inputs[0].data) == 3 * 8 * 8 * 4
    ours = write_bundle(bundle.program, bundle.suites)
    assert read_bundle(ours) == bundle
    from executorch.devtools.bundled_program.serialize import (
        deserialize_from_flatbuffer_to_bundled_program,
    )

    with warnings.catch_warnings():      # upstream's reader uses importlib.resources.read_binary
        warnings.simplefilter("ignore", DeprecationWarning)
        upstream = deserialize_from_flatbuffer_to_bundled_program(ours)   # upstream reads ours
    assert bytes(upstream.program) == bundle.program
    assert [len(s.test_cases) for s in upstream.method_test_suites] == [3]
    tensor = upstream.method_test_suites[0].test_cases[2].expected_outputs[0].val
    assert bytes(tensor.data) == bundle.suites[0].cases[2].expected_outputs[0].data
    assert inspect_artifact(foreign["bundled"]).to_dict()["bundle"]["test_suites"] == [
        {"method": "forward", "cases": 3}]


def test_other_backend_is_named(foreign: dict[str, Path]) -> None:
    inspection = inspect_artifact(foreign["xnnpack"])
    assert not inspection.runnable
    assert any("XnnpackBackend" in reason for reason in inspection.reasons)


def test_missing_operator_and_external_blocks_are_reasons(foreign: dict[str, Path]) -> None:
    program = read_program(foreign["ethos-u85-128"].read_bytes())
    method = replace(program.methods[0], operators=("aten::not_a_kernel.out",
                                                    "cortex_m::quantize_per_tensor.out"))
    delegate = program.delegates[0]
    blob = bytearray(delegate.data)
    weights = blob.find(b"weight_data")
    blob[weights + 20] = 1                  # the 1.5 external flag of the weight block
    facts = ethosu_delegate(delegate.compile_specs, bytes(blob))
    reasons = refusal_reasons(replace(program, methods=(method,)), (facts,),
                              ("ethos-u85-128",), "1.4.1")
    assert any("aten::not_a_kernel.out" in r for r in reasons)
    assert any("weight_data" in r and "named data" in r for r in reasons)
    assert "cortex_m::quantize_per_tensor.out" not in " ".join(reasons)


@pytest.mark.parametrize("cut", [12, 3000])
def test_truncated_file_is_one_sentence(foreign: dict[str, Path], tmp_path: Path,
                                        cut: int) -> None:
    bad = tmp_path / "cut.pte"
    bad.write_bytes(foreign["ethos-u85-128"].read_bytes()[:cut])
    with pytest.raises(OrchestratorError, match="truncated or corrupt"):
        inspect_artifact(bad)


def test_not_a_program(tmp_path: Path) -> None:
    other = tmp_path / "model.pte"
    other.write_bytes(b"PK\x03\x04 a torch.save zip, not a program")
    with pytest.raises(OrchestratorError, match="not an ExecuTorch program or bundled"):
        inspect_artifact(other)


def test_cli_json_and_exit_codes_without_torch(foreign: dict[str, Path]) -> None:
    code = ("import sys\n"
            "from orchestrator.commands.inspect import inspect_command\n"
            "from orchestrator.options.artifact import InspectTask\n"
            "rc = inspect_command(InspectTask(file=sys.argv[1]), json=True)\n"
            "assert 'torch' not in sys.modules, 'inspect imported torch'\n"
            "sys.exit(rc)")
    ok = subprocess.run([sys.executable, "-c", code, str(foreign["bundled"])],
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["runtime"]["runnable"] is True
    refused = subprocess.run([sys.executable, "-c", code, str(foreign["xnnpack"])],
                             capture_output=True, text=True, check=False)
    assert refused.returncode == 1
    assert "XnnpackBackend" in refused.stdout


def test_the_python_api_inspects_as_the_command_does(foreign: dict[str, Path]) -> None:
    from orchestrator import api

    runnable = api.inspect(file=str(foreign["ethos-u85-128"]))
    assert runnable.passed and "ethos-u85-128" in runnable.diagnosis
    assert json.loads(runnable.to_json())["targets"] == ["ethos-u85-128"]
    refused = api.inspect(file=str(foreign["xnnpack"]))
    assert not refused.passed and "XnnpackBackend" in refused.diagnosis
