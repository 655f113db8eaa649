"""The NPU self-test on QEMU: a real convnet compile (pinned Vela) gives a command stream, the
host computes its outputs on the TOSA reference model, the NPU model cross-built
for the Cortex-M55 runs it under QEMU without the ExecuTorch runtime, and the device checks
every output byte. Needs no upstream sources (CI runs it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from orchestrator.api.run_job import execute
from orchestrator.apps.npu_selftest.case import NpuCase, render_header
from orchestrator.apps.npu_selftest.run import build_case, compile_case, model_plan, run_case
from orchestrator.commands.run import RunRequest
from orchestrator.foundation.paths import Scratch
from orchestrator.results import Kind, RunResult, Status
from orchestrator.results.schema import validation_errors
from orchestrator.sim.kinds import SimOptions
from orchestrator.targets import Simulator

pytestmark = pytest.mark.slow

MODEL = "convnet"


@pytest.fixture(scope="module")
def case(fw_scratch: Scratch) -> NpuCase:
    return compile_case(fw_scratch, MODEL, "ethos-u55-128")


@pytest.fixture(scope="module")
def u55_run(fw_scratch: Scratch, case: NpuCase, qemu: tuple[Simulator, Path]) -> RunResult:
    return execute(RunRequest(target="ethos-u55-128", app="npuselftest", sim="qemu",
                              model=MODEL), fw_scratch)


def test_case_is_the_compiled_stream_with_tosa_reference_outputs(case: NpuCase) -> None:
    blob = case.blob
    assert blob.cmd_data[:4] == b"COP1" and blob.weight_data and blob.scratch_size > 0
    assert [io.nbytes for io in blob.inputs] == [a.nbytes for a in case.inputs]
    assert [io.nbytes for io in blob.outputs] == [a.nbytes for a in case.expected]
    assert case.expected[0].dtype == np.int8 and case.expected[0].shape == (1, 10)
    header = render_header(case)
    assert "npu_case_cmd" in header and f"{blob.scratch_size}u" in header


def test_npu_model_on_the_m55_reproduces_the_tosa_reference(
        u55_run: RunResult, case: NpuCase) -> None:
    result = u55_run
    assert result.status is Status.PASS, result.reason
    checks = result.target.options["checks"]
    assert checks == {"driver_init": True, "driver_reserved": True, "npu_invoke": True,
                      "output0_exact": True}
    (output,) = result.outputs
    assert output.shape is not None
    device = np.array(output.values, dtype=np.int8).reshape(output.shape)
    assert np.array_equal(device, case.expected[0])
    assert result.simulation.exit_code == 0


def test_result_names_the_npu_model_and_no_npu_timing(u55_run: RunResult) -> None:
    document: dict[str, Any] = u55_run.to_dict()
    assert validation_errors(document) == []
    npu = document["npu"]
    assert npu["executor"] == "npu-model"
    assert npu["executor_version"].startswith("npu_model ")
    assert npu["cycles"] is None and npu["counters"] == [] and npu["delegations"] == 1
    assert document["target"]["simulator"] == "qemu"
    assert document["target"]["options"]["compiled_for"] == "ethos-u55-128"


def test_stream_for_another_npu_config_is_refused_on_the_device(
        fw_scratch: Scratch, case: NpuCase, qemu: tuple[Simulator, Path]) -> None:
    plan = model_plan(fw_scratch, "ethos-u65-256", SimOptions(timeout_s=60.0, idle_timeout_s=20.0))
    build = build_case(fw_scratch, plan.target, case, "release")
    result = run_case(fw_scratch, plan, case, build)
    assert result.status is Status.FAIL
    assert result.classification.kind is Kind.NPU_ERROR
    assert result.reason.startswith("NPU model (ethos-u65-256): ")
    assert "55" in result.reason and "65" in result.reason
    assert "output0_exact" not in result.target.options["checks"]


U85_TARGET = "ethos-u85-128"


@pytest.fixture(scope="module")
def u85_run(fw_scratch: Scratch, qemu: tuple[Simulator, Path]) -> RunResult:
    """A U85 command stream in the self-test: QEMU has no Corstone-320, so it runs on
    mps3-an547's Cortex-M55 with the model built for Ethos-U85-128."""
    return execute(RunRequest(target=U85_TARGET, app="npuselftest", sim="qemu", model=MODEL),
                   fw_scratch)


def test_u85_case_carries_its_memory_modes_fast_scratch(fw_scratch: Scratch) -> None:
    """The .pte has no fast-scratch size: the case takes the one the runner gives region 2 for
    the target's memory mode (U85: Dedicated_Sram_384KB, runner.toml), as its stream needs."""
    case = compile_case(fw_scratch, MODEL, U85_TARGET)
    assert case.fast_scratch_size == 384 * 1024
    assert f"#define NPU_CASE_FAST_SCRATCH_SIZE {384 * 1024}u" in render_header(case)
    assert compile_case(fw_scratch, MODEL, "ethos-u55-128").fast_scratch_size == 0


def test_u85_selftest_names_the_m55_that_ran_it(u85_run: RunResult) -> None:
    document: dict[str, Any] = u85_run.to_dict()
    assert validation_errors(document) == []
    assert document["npu"]["executor"] == "npu-model"
    assert document["npu"]["cycles"] is None and document["npu"]["counters"] == []
    options = document["target"]["options"]
    assert options["compiled_for"] == U85_TARGET
    assert options["cpu"] == "cortex-m55"
    assert "not ethos-u85-128's own cortex-m85" in options["cpu_note"]


def test_u85_selftest_reproduces_the_tosa_reference(u85_run: RunResult) -> None:
    assert u85_run.status is Status.PASS, u85_run.reason
    assert u85_run.target.options["checks"] == {"driver_init": True, "driver_reserved": True,
                                                "npu_invoke": True, "output0_exact": True}
    assert u85_run.simulation.exit_code == 0
