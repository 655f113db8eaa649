"""Every Cortex-M CPU on its QEMU board (real compiles, runtime builds per CPU, QEMU runs):
the device's outputs equal the exact reference bit for bit, the result records CPU, ISA and
CMSIS-NN backend (and which core ran a CPU QEMU has no board for). Scalar = DSP = MVE: the
same model on M3 (scalar), M4 (DSP) and M55 (MVE) gives bit-identical outputs, and so does
the M55 forced to its scalar and DSP kernels (--isa), both through `invoke isa-check`'s path
(orchestrator/commands/isa_check.py); where runs differ, the check names the first differing
output (orchestrator/runner/isa_agreement.py). One runtime build per CPU and
ISA costs minutes: the M4 runs by default (one QEMU run), the other CPUs and the agreement
checks under -m sweep."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.isa_check import isa_check
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.options.compile import CompileChoices
from orchestrator.options.fields import from_cli
from orchestrator.options.isa_check import IsaCheck
from orchestrator.results import RunResult, Status

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]
MODEL = str(Path(__file__).resolve().parents[1] / "aot" / "models" / "cmsis_mix.py")
SWEEP = pytest.mark.sweep
CPUS = [pytest.param("cortex-m3", marks=SWEEP), "cortex-m4", pytest.param("cortex-m7", marks=SWEEP),
        pytest.param("cortex-m33", marks=SWEEP), pytest.param("cortex-m0plus", marks=SWEEP),
        pytest.param("cortex-m0", marks=SWEEP), pytest.param("cortex-m23", marks=SWEEP),
        pytest.param("cortex-m35p", marks=SWEEP)]
BACKEND = {"cortex-m0": "SCALAR", "cortex-m0plus": "SCALAR", "cortex-m3": "SCALAR",
           "cortex-m23": "SCALAR", "cortex-m4": "DSP", "cortex-m7": "DSP", "cortex-m33": "DSP",
           "cortex-m35p": "DSP", "cortex-m55": "MVE"}
_RESULTS: dict[tuple[str, str | None, str], RunResult] = {}


def run_on(work, sources, cpu: str, isa: str | None = None, sim: str = "qemu") -> RunResult:
    """One run of the model on `cpu` (once per session)."""
    if (cpu, isa, sim) not in _RESULTS:
        choices = {"quantize": "int8", **({"isa": isa} if isa else {})}
        request = RunRequest(target=cpu, app="runner", sim=sim, model=MODEL,
                             timeout_s=600.0, idle_timeout_s=300.0,
                             runner=replace(from_cli(RunnerSettings, {}), sources=sources),
                             compile=from_cli(CompileChoices, choices))
        _RESULTS[(cpu, isa, sim)] = execute(request, work)
    return _RESULTS[(cpu, isa, sim)]


@pytest.mark.parametrize("cpu", CPUS)
def test_device_output_is_bit_exact_on_the_cpus_board(runner_scratch, runtime_sources,
                                                      cpu) -> None:
    result = run_on(runner_scratch, runtime_sources, cpu)
    assert result.status is Status.PASS, result.reason
    assert result.comparison is not None and result.comparison.exact is True
    assert result.comparison.mismatches == 0
    record = result.target.options["cortex_m"]
    assert (record["cpu"], record["cmsis_nn_backend"]) == (cpu, BACKEND[cpu])
    assert ("ran_on" in record) == (cpu in ("cortex-m0", "cortex-m0plus", "cortex-m23",
                                            "cortex-m35p"))
    soft = cpu in ("cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m23")   # no FPU
    assert (record["float_abi"] == "soft") == soft, record


@SWEEP
def test_the_cortex_m33_build_runs_bit_exact_on_the_an524(runner_scratch, runtime_sources) -> None:
    result = run_on(runner_scratch, runtime_sources, "cortex-m33", sim="qemu-mps3-an524")
    assert result.status is Status.PASS, result.reason
    assert result.comparison is not None and result.comparison.exact is True
    assert result.target.simulator == "qemu-mps3-an524"
    record = result.target.options["cortex_m"]
    assert (record["board"], record["cmsis_nn_backend"]) == ("mps3-an524", "DSP")
    assert "ran_on" not in record


def agreement_of(work, sources, *on: str):
    """`invoke isa-check --on ... --quantize int8` on the model (the user's command's path)."""
    check = IsaCheck(on=on, model=MODEL, timeout_s=600.0,
                     runner=replace(from_cli(RunnerSettings, {}), sources=sources),
                     compile=from_cli(CompileChoices, {"quantize": "int8"}))
    runs, found = isa_check(check, work)
    for result in runs:
        assert result.status is Status.PASS, result.reason
        assert result.comparison is not None and result.comparison.exact is True
    assert found is not None
    print(found.sentence())
    return found


@SWEEP
def test_scalar_dsp_and_mve_kernels_give_identical_outputs(runner_scratch,
                                                           runtime_sources) -> None:
    found = agreement_of(runner_scratch, runtime_sources, "cortex-m3", "cortex-m4", "cortex-m55")
    assert found.agreed, found.sentence()
    assert found.labels == ("cortex-m3 (SCALAR)", "cortex-m4 (DSP)", "cortex-m55 (MVE)")


@SWEEP
def test_one_core_forced_to_scalar_dsp_and_mve_gives_identical_outputs(runner_scratch,
                                                                        runtime_sources) -> None:
    found = agreement_of(runner_scratch, runtime_sources, "cortex-m55:scalar", "cortex-m55:dsp",
                         "cortex-m55")
    assert found.agreed, found.sentence()
    assert found.labels == ("cortex-m55 (SCALAR)", "cortex-m55 (DSP)", "cortex-m55 (MVE)")
