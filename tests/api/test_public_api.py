"""orchestrator.api: the jobs as Python functions with the flags as keywords, typed reports,
one exception type, and an import that loads no torch. Compile, verify and regress run for
real (host lanes: no sources needed); run and evaluate (the digits example) run on QEMU with
the upstream sources (skipped without) and are refused with the CLI's one line without them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator import api
from orchestrator.api.flags import flag_names, request_from
from orchestrator.api.reports import (
    CompileReport,
    EvaluateReport,
    RegressReport,
    RunReport,
    VerifyReport,
)
from orchestrator.foundation.paths import scratch
from orchestrator.options.compile import CompileTask
from orchestrator.options.fields import from_cli

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("torch", "numpy", "executorch", "invoke", "rich", "orchestrator.aot.api")
MATRIX = """schema = 1
name = "api-verify"
[[lanes]]
name = "host"
mode = "verify"
models = ["add"]
targets = ["ethos-u55-128", "ethos-u85-128"]
"""


def test_importing_the_api_loads_no_torch():
    code = ("import sys, orchestrator.api; "
            f"print([m for m in {HEAVY!r} if m in sys.modules])")
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert shown.stdout.strip() == "[]"


def test_an_unknown_keyword_is_the_one_line_error_naming_the_flags():
    with pytest.raises(api.OrchestratorError) as caught:
        api.compile(modle="add")
    assert caught.value.cause.startswith("compile(): modle is not an option (known: ")
    assert "model" in caught.value.cause and "no_delegate" in caught.value.cause
    assert caught.value.next_step == "invoke compile --help lists them"


def test_keywords_build_the_request_the_command_line_builds():
    flags = {"model": "add", "target": "ethos-u85-128", "quantize": "int8",
             "vela_flags": "--optimise Size", "no_delegate": True}
    assert request_from(CompileTask, flags, "compile") == from_cli(CompileTask, flags, "compile")
    assert request_from(CompileTask, {"delegate": False}, "compile").choices.delegate is False
    assert {"model", "target", "no_delegate", "vela_flags"} <= set(flag_names(CompileTask))


def test_a_missing_required_flag_names_the_command_to_run():
    with pytest.raises(api.OrchestratorError) as caught:
        api.evaluate(target="ethos-u85-128")
    assert caught.value.message == ("--data is required and not given; next: invoke evaluate "
                                    "--data DATA")


def test_run_refuses_an_unknown_target_with_the_next_step(tmp_path):
    with pytest.raises(api.OrchestratorError) as caught:
        api.run(target="ethos-u99-1", model="add", scratch=tmp_path)
    assert "ethos-u99-1" in caught.value.cause
    assert caught.value.next_step


def test_inspect_of_a_file_that_is_not_there_is_one_sentence(tmp_path):
    with pytest.raises(api.OrchestratorError) as caught:
        api.inspect(file=str(tmp_path / "no-such.pte"))
    assert "no-such.pte" in caught.value.cause and caught.value.next_step


def test_inspect_of_a_file_that_is_no_program_names_it(tmp_path):
    path = tmp_path / "notes.pte"
    path.write_bytes(b"these are not the flatbuffers you are looking for")
    with pytest.raises(api.OrchestratorError) as caught:
        api.inspect(file=str(path))
    assert "notes.pte" in caught.value.cause and caught.value.next_step


@pytest.fixture(scope="module")
def host_scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("api-scratch")


@pytest.mark.slow
def test_compile_returns_the_summary_the_cli_prints(host_scratch):
    report = api.compile(model="add", target="ethos-u85-128", scratch=host_scratch, quiet=True)
    assert isinstance(report, CompileReport) and report.passed
    assert report.pte.is_file() and report.pte.is_relative_to(host_scratch)
    document = json.loads(report.to_json())
    assert document["target"] == "ethos-u85-128" and document["model"] == "add"
    assert report.numbers()["npu_ops"] == document["delegation"]["npu_op_count"] > 0
    assert report.diagnosis.startswith("add -> ethos-u85-128: ")


@pytest.mark.slow
def test_verify_is_exact_on_both_families(host_scratch):
    report = api.verify(model="add", target="ethos-u55-128,ethos-u85-128", scratch=host_scratch)
    assert isinstance(report, VerifyReport) and report.exact
    assert report.diagnosis == "add on Ethos-U55-128: exact; add on Ethos-U85-128: exact"
    assert report.numbers()["differing"] == 0
    assert [d["exact"] for d in json.loads(report.to_json())] == [True, True]


@pytest.mark.slow
def test_regress_writes_the_reports_and_gives_the_verdict(host_scratch, tmp_path):
    matrix = tmp_path / "api.toml"
    matrix.write_text(MATRIX)
    report = api.regress(matrix=str(matrix), scratch=host_scratch, quiet=True)
    assert isinstance(report, RegressReport) and report.passed
    assert report.numbers()["cells.pass"] == 2
    assert report.paths["json"].is_file() and report.paths["junit"].is_file()
    assert json.loads(report.paths["json"].read_text())["verdict"] == "pass"


@pytest.mark.slow
@pytest.mark.needs_sources
def test_run_on_qemu_returns_the_run_result(sourced_scratch):
    report = api.run(target="ethos-u85-128", model="add", sim="qemu",
                     scratch=sourced_scratch, quiet=True)
    assert isinstance(report, RunReport) and report.passed, report.diagnosis
    assert report.result.comparison is not None and report.result.comparison.exact
    assert report.numbers()["mismatches"] == 0
    assert report.run_dir is not None and (report.run_dir / "result.json").is_file()
    assert scratch(sourced_scratch).runs in report.run_dir.parents


@pytest.mark.slow
@pytest.mark.needs_sources
def test_evaluate_on_qemu_scores_every_sample(sourced_scratch, tmp_path):
    digits = ROOT / "examples" / "digits" / "digits_cnn.py"
    subprocess.run([sys.executable, str(digits), str(tmp_path / "digits"), "8"], cwd=ROOT,
                   check=True, capture_output=True)
    report = api.evaluate(model=str(digits), target="cortex-m55", data=str(tmp_path / "digits"),
                          sim="qemu", scratch=sourced_scratch, quiet=True)
    assert isinstance(report, EvaluateReport) and report.passed, report.diagnosis
    assert report.numbers()["samples"] == 8 and report.numbers()["exact"] == 8
    assert json.loads(report.to_json())["summary"]["completed"] == 8
