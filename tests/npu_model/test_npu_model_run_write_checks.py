"""The NPU-model lane's write checks attached to a RunResult on the host (no QEMU run, no
upstream sources): the packed q/k/v attention on Ethos-U55-32 gets its finding recorded, said
in one summary sentence with the next step, and named as the likely cause when the outputs
depart from the exact reference; an exact program (add) gets none. The QEMU run itself is
tests/runner/test_runner_qemu_write_checks.py."""

from __future__ import annotations

import numpy as np
import pytest
from npu_model_support import compiled, needs_toolchain

from orchestrator.comparison.departure import judge
from orchestrator.results import Classification, Kind, NpuPmu, RunResult, Status, validate
from orchestrator.results.summary_table import summary_rows
from orchestrator.runner.output_check import apply_exact
from orchestrator.runner.write_checks import attach_write_checks
from orchestrator.targets.model import EXECUTOR_FVP, EXECUTOR_MODEL

pytestmark = pytest.mark.slow
PACKED = "npu_model_cases_geometry:attention_packed_qkv"
CLOBBERED_ON = "ethos-u55-32"


def _passing_run(executor: str) -> RunResult:
    return RunResult(status=Status.PASS, reason="ran", classification=Classification(
        kind=Kind.SUCCESS, summary="ran", next_step="none"),
        npu=NpuPmu(executor=executor, delegations=1))


def _attached(model: str, target: str, executor: str = EXECUTOR_MODEL) -> RunResult:
    needs_toolchain()
    return attach_write_checks(_passing_run(executor), compiled(model, target), model, target)


def test_packed_attention_finding_is_recorded_said_and_named_as_the_likely_cause() -> None:
    result = _attached(PACKED, CLOBBERED_ON)
    checks = result.write_checks
    assert checks is not None and checks.findings
    assert "same command stream" in checks.note and checks.executor.endswith("(host)")
    assert any(f["command"] == "NPU_OP_ELEMENTWISE" and "its own OFM" in f["clobbers"]
               for f in checks.findings)
    assert result.timings_s["write_checks"] == checks.seconds
    validate(result.to_dict())
    assert RunResult.from_json(result.to_json()).write_checks == checks
    (line,) = [value for name, value in summary_rows(result) if name == "write checks"]
    assert line.count("next: ") == 1 and "split the packed projection" in line
    assert "NPU model over the same command stream" in line
    departed = judge([np.ones(4, np.int8)], [np.zeros(4, np.int8)])
    failed = apply_exact(result, departed, "invoke run --target ethos-u55-32 --model m")
    assert failed.status is Status.FAIL
    step = failed.classification.next_step
    assert step.startswith("likely cause: the compiled program writes")
    assert "split the packed projection" in step and "same command stream" in step


def test_exact_program_has_no_finding() -> None:
    result = _attached("add", "ethos-u55-128")
    assert result.write_checks is not None and result.write_checks.findings == []
    (line,) = [value for name, value in summary_rows(result) if name == "write checks"]
    assert line.startswith("no write over a live tensor")


def test_no_check_when_the_npu_was_not_the_npu_model() -> None:
    assert _attached("add", "ethos-u55-128", EXECUTOR_FVP).write_checks is None
