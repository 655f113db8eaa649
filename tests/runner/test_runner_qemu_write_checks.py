"""`invoke run --sim qemu` of an NPU target records the write checks run on the NPU model
over the same command streams (real compiles, runner builds and QEMU runs; needs the upstream
sources, skips without): the packed q/k/v attention on Ethos-U55-32 gets its finding in the
RunResult and the summary, an exact program (add) none."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import Scratch
from orchestrator.results import RunResult, validate
from orchestrator.results.summary_table import summary_rows

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "npu_model"))  # the attention module
PACKED = "npu_model_cases_geometry:attention_packed_qkv"


def _run(work: Scratch, sources: dict[str, Any], model: str, target: str) -> RunResult:
    return execute(RunRequest(target=target, app="runner", sim="qemu", model=model,
                              timeout_s=300.0, idle_timeout_s=120.0,
                              runner=RunnerSettings(sources=sources)), work)


def test_packed_attention_run_records_its_finding(runner_scratch: Scratch,
                                                  runtime_sources: dict[str, Any]) -> None:
    result = _run(runner_scratch, runtime_sources, PACKED, "ethos-u55-32")
    assert result.npu is not None and result.npu.executor == "npu-model"
    checks = result.write_checks
    assert checks is not None and checks.findings, result.reason
    assert "same command stream" in checks.note
    validate(result.to_dict())
    (line,) = [value for name, value in summary_rows(result) if name == "write checks"]
    assert "next: split the packed projection" in line
    # the device's outputs depart from the exact reference: the finding is named as the cause
    assert result.comparison is not None and result.comparison.exact is False
    assert result.classification.next_step.startswith("likely cause: ")


def test_exact_run_has_no_finding(runner_scratch: Scratch,
                                  runtime_sources: dict[str, Any]) -> None:
    result = _run(runner_scratch, runtime_sources, "add", "ethos-u55-128")
    assert result.comparison is not None and result.comparison.exact is True
    assert result.write_checks is not None and result.write_checks.findings == []
