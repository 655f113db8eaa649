"""The ExecuTorch runner end to end on QEMU mps3-an547 (Cortex-M55, no NPU): real compiles,
real runtime + runner builds, real QEMU runs; outputs must match the host reference. Also:
the runner links for Corstone-300 (U55-128) and Corstone-320 (U85-128)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import from_cli
from orchestrator.results import Kind, Status

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]


def run_model(work, sources, model: str, quantize: str, **extra):
    request = RunRequest(target="cortex-m55", app="runner", sim="qemu", model=model,
                         timeout_s=120.0, idle_timeout_s=60.0,
                         runner=replace(from_cli(RunnerSettings, extra), sources=sources),
                         compile=from_cli(CompileChoices, {"quantize": quantize}))
    return execute(request, work)


@pytest.fixture(scope="module")
def float_run(runner_scratch, runtime_sources):
    return run_model(runner_scratch, runtime_sources, "convnet", "none")


@pytest.fixture(scope="module")
def int8_run(runner_scratch, runtime_sources):
    return run_model(runner_scratch, runtime_sources, "convnet", "int8")


def test_float_program_runs_and_matches_the_host(float_run):
    result = float_run
    assert result.status is Status.PASS, result.reason
    assert result.comparison.passed and result.comparison.reference == "float"
    assert result.comparison.max_absolute_error < 1e-4
    (output,) = result.outputs
    assert output.dtype == "float32" and output.shape == [1, 10] and output.exact
    assert result.cpu.source == "systick" and result.cpu.total > 0
    pools = result.memory.pools
    assert 0 < pools["method_pool"].used <= pools["method_pool"].size
    assert pools["temp_pool"].size > 0
    assert result.npu is None


def test_int8_cmsis_nn_program_runs_and_matches_the_host(int8_run):
    result = int8_run
    assert result.status is Status.PASS, result.reason
    assert result.comparison.passed and result.comparison.reference == "exact"
    assert result.comparison.exact and result.accuracy.outputs
    assert result.target.options["kernel_set"] == "model"
    kernels = result.target.options["kernels"]
    assert kernels["kernel_set"] == "model" and isinstance(kernels["portable_ops"], list)


def test_run_directory_has_result_transcript_command(float_run):
    run_dir = Path(float_run.artifacts["result"]).parent
    for name in ("result.json", "transcript.log", "command.txt", "comparison.json",
                 "model_area.bin", "input_area.bin"):
        assert (run_dir / name).is_file(), name
    command = (run_dir / "command.txt").read_text()
    assert "-M mps3-an547" in command and "loader,file=" in command
    assert json.loads((run_dir / "result.json").read_text())["status"] == "pass"


def test_second_model_reuses_the_built_runner(runner_scratch, runtime_sources, float_run):
    # int8 add needs Cortex-M kernels only: nothing new for the growing kernel set
    again = run_model(runner_scratch, runtime_sources, "add", "int8")
    assert again.status is Status.PASS, again.reason
    assert again.target.options["build_key"] == float_run.target.options["build_key"]
    assert again.timings_s["runtime_build"] < 30 and again.timings_s["runner_build"] < 30
    assert again.target.options["kernels"] == float_run.target.options["kernels"]


def test_a_model_with_a_new_op_grows_the_kernel_set(runner_scratch, runtime_sources,
                                                     float_run):
    # float add needs aten::add.out, which the float convnet did not bring
    before = set(float_run.target.options["kernels"]["portable_ops"])
    grown = run_model(runner_scratch, runtime_sources, "add", "none")
    assert grown.status is Status.PASS, grown.reason
    after = set(grown.target.options["kernels"]["portable_ops"])
    # (a scratch reused across sessions may have grown already: then nothing is added)
    assert after >= before | {"aten::add.out"}
    assert after - before <= {"aten::add.out"}
    assert grown.target.options["build_key"] == float_run.target.options["build_key"]


def test_pool_too_small_is_refused_before_simulating(runner_scratch, runtime_sources):
    with pytest.raises(OrchestratorError, match="needs .* has .* --method-pool"):
        run_model(runner_scratch, runtime_sources, "convnet", "none", method_pool="64K")


def test_tolerance_too_tight_is_an_output_mismatch(runner_scratch, runtime_sources):
    # Float on Cortex-M differs from the host in the last bits (max abs ~6e-8), so zero
    # tolerance must fail with the numbers.
    result = run_model(runner_scratch, runtime_sources, "convnet", "none", atol="0", rtol="0")
    assert 0 < result.comparison.max_absolute_error < 1e-4
    assert result.status is Status.FAIL
    assert result.classification.kind is Kind.OUTPUT_MISMATCH


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-128"])
def test_runner_links_for_npu_platforms(runner_scratch, runtime_sources, target):
    from orchestrator.runner.config import memory_mode_of, pools_for
    from orchestrator.runner.firmware import RunnerOptions, build_runner
    from orchestrator.targets import load_catalogue

    spec = load_catalogue().target(target)
    mode = memory_mode_of(spec, None)
    built = build_runner(runner_scratch, spec, RunnerOptions(mode, pools_for(mode)),
                         runtime_sources)
    assert built.firmware.elf.is_file()
    assert built.firmware.config.platform.name == spec.platform.name
    symbols = built.firmware.elf.read_bytes()
    assert b"EthosUBackend" in symbols or b"ethosu_invoke" in symbols
    # the timing adapters are programmed: their AXI0 base is a literal in the code
    base = {"corstone-300": 0x58103000, "corstone-320": 0x50006000}[spec.platform.name]
    assert base.to_bytes(4, "little") in symbols



def test_temp_pool_exhausted_on_target_is_an_allocation_failure(runner_scratch,
                                                                 runtime_sources):
    # The pre-check cannot know CMSIS-NN's kernel scratch needs, so the target finds out:
    # the runner exits with its allocation code and the host names the pool.
    result = run_model(runner_scratch, runtime_sources, "convnet", "int8", temp_pool="64")
    assert result.status is Status.FAIL
    assert result.classification.kind is Kind.ALLOC_FAILURE
    assert "temp pool too small" in result.reason
    assert result.simulation.exit_code == 12
