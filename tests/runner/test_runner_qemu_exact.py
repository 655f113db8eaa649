"""Cortex-M55 on QEMU, int8 (real compiles, builds, runs): the device's outputs equal the
exact reference bit for bit; accuracy vs the float model is reported, never failing the run
unless a gate is asked for."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import from_cli
from orchestrator.results import Status

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]
MODELS = Path(__file__).resolve().parents[1] / "aot" / "models"
CASES = ["add", "softmax", "convnet", "mv2", str(MODELS / "residual_cnn.py"),
         str(MODELS / "mlp.py")]


def run_int8(work, sources, model: str, **extra):
    request = RunRequest(target="cortex-m55", app="runner", sim="qemu", model=model,
                         timeout_s=600.0, idle_timeout_s=300.0,
                         runner=replace(from_cli(RunnerSettings, extra), sources=sources),
                         compile=from_cli(CompileChoices, {"quantize": "int8"}))
    return execute(request, work)


@pytest.mark.parametrize("model", CASES, ids=lambda m: Path(m).stem)
def test_int8_device_output_is_bit_exact(runner_scratch, runtime_sources, model):
    result = run_int8(runner_scratch, runtime_sources, model)
    assert result.status is Status.PASS, result.reason
    comparison = result.comparison
    assert comparison.reference == "exact" and comparison.exact is True
    assert comparison.mismatches == 0 and comparison.first_mismatch is None
    (accuracy,) = result.accuracy.outputs
    assert accuracy.quant_step and accuracy.max_abs_steps is not None
    assert result.accuracy.passed is None          # reported, not a gate


def test_mv2_accuracy_gate_fails_only_when_asked(runner_scratch, runtime_sources):
    gated = run_int8(runner_scratch, runtime_sources, "mv2", min_snr="200")
    assert gated.comparison.exact is True
    assert gated.status is Status.FAIL and "accuracy below the gate" in gated.reason
    assert gated.accuracy.passed is False


def test_a_warm_run_adopts_its_early_start(runner_scratch, runtime_sources, monkeypatch):
    """Runs of one request as `invoke run` makes them (under early_start): the last one's
    simulator starts from the launch record before its plan and build checks, is adopted,
    and its result is the same bit-exact pass."""
    from orchestrator.foundation.run_ids import new_run_id
    from orchestrator.runner import early_start as early

    adopted: list[bool] = []
    adopt = early.EarlyStart.adopt

    def spy(self, *args):
        process = adopt(self, *args)
        adopted.append(process is not None)
        return process

    monkeypatch.setattr(early.EarlyStart, "adopt", spy)
    request = RunRequest(target="cortex-m55", sim="qemu", model="convnet", timeout_s=600.0,
                         runner=replace(RunnerSettings(), sources=runtime_sources),
                         compile=from_cli(CompileChoices, {"quantize": "int8"}))
    for _ in range(2):
        run = replace(request, run_id=new_run_id()).resolved()
        with early.early_start(run, runner_scratch):
            result = execute(run, runner_scratch)
        assert result.status is Status.PASS and result.comparison.exact is True
    assert adopted and adopted[-1] is True
    assert 0 < result.timings_s["simulate"] < 60
