"""`invoke run --profile` on QEMU (real compiles, a real runtime built with the devtools event
tracer, real QEMU runs): the runner sends its ETDump back through the protocol, ExecuTorch's
Inspector reads it with the product's ETRecord, and the per-operator table adds up to the
traced Method::execute total. add, convnet and mv2 on the Cortex-M55 (CPU kernels), add on
the functional Ethos-U55 model (a delegate row beside Vela's estimate). Needs the upstream
sources (skips without)."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.options.fields import from_cli
from orchestrator.results import RunResult, Status, validation_errors
from orchestrator.results.summary_table import format_result

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]


def profiled(work, sources, model: str, target: str = "cortex-m55") -> RunResult:
    settings = replace(from_cli(RunnerSettings, {"quantize": "int8", "profile": True}),
                       sources=sources)
    return execute(RunRequest(target=target, app="runner", sim="qemu", model=model,
                              timeout_s=300.0, idle_timeout_s=120.0, runner=settings), work)


@pytest.fixture(scope="module", params=["add", "convnet", "mv2"])
def cpu_run(request, runner_scratch, runtime_sources):
    return profiled(runner_scratch, runtime_sources, request.param)


@pytest.fixture(scope="module")
def npu_model_run(runner_scratch, runtime_sources):
    return profiled(runner_scratch, runtime_sources, "add", "ethos-u55-128")


def check_adds_up(result: RunResult) -> None:
    profile = result.profile
    assert profile is not None, result.classification.details
    assert profile.inferences == 1 and profile.total > 0 and profile.etrecord
    assert sum(row.total for row in profile.operators) + profile.runtime_overhead \
        == profile.total
    assert 0 <= profile.runtime_overhead < profile.total
    # the traced inference is inside the runner's own count of the same loop
    assert result.cpu is not None and result.cpu.total is not None
    assert profile.total <= result.cpu.total
    rows = list(csv.DictReader(io.StringIO(Path(result.artifacts["profile_csv"]).read_text())))
    assert sum(int(row["total"]) for row in rows) == profile.total
    trace = json.loads(Path(result.artifacts["profile_trace"]).read_text())
    assert any(e["name"] == "Method::execute" and e["ph"] == "X" for e in trace["traceEvents"])
    assert not validation_errors(result.to_dict())


def test_cpu_programs_profile_per_kernel(cpu_run):
    assert cpu_run.status is Status.PASS, cpu_run.reason
    check_adds_up(cpu_run)
    profile = cpu_run.profile
    assert profile is not None and profile.source == "systick" and not profile.timing
    assert all(row.executor == "CPU kernel" for row in profile.operators)
    assert Path(cpu_run.artifacts["etdump"]).stat().st_size == profile.etdump_bytes
    check_the_summary_shows_the_heaviest_operators(cpu_run)


def check_the_summary_shows_the_heaviest_operators(result: RunResult) -> None:
    """What `invoke run --profile` prints: the top operators by share, heaviest first."""
    assert result.profile is not None
    (line,) = [line for line in format_result(result).splitlines()
               if line.startswith("profile ")]
    heaviest = max(result.profile.operators, key=lambda row: row.share_percent)
    assert f"{heaviest.operator}" in line and f"{heaviest.share_percent:.1f}%" in line


def test_mv2_profile_names_its_convolutions(cpu_run):
    if cpu_run.model != "mv2":
        pytest.skip("mv2 only")
    assert cpu_run.profile is not None
    names = {row.operator for row in cpu_run.profile.operators}
    assert any("conv" in name for name in names), names
    assert len(names) >= 5


def test_npu_model_delegate_row_has_vela_estimate(npu_model_run):
    assert npu_model_run.status is Status.PASS, npu_model_run.reason
    check_adds_up(npu_model_run)
    profile = npu_model_run.profile
    assert profile is not None
    (delegate,) = [row for row in profile.operators if row.executor.startswith("delegate")]
    assert delegate.operator == "EthosUBackend partition 0"
    assert delegate.vela_cycles and delegate.vela_operations
    assert "not NPU timing" in (profile.npu_note or "")


def test_intermediates_of_an_exact_cpu_program_show_no_departure(runner_scratch,
                                                                  runtime_sources):
    settings = replace(from_cli(RunnerSettings, {"quantize": "int8", "intermediates": True}),
                       sources=runtime_sources)
    result = execute(RunRequest(target="cortex-m55", app="runner", sim="qemu", model="convnet",
                                timeout_s=300.0, idle_timeout_s=120.0, runner=settings),
                     runner_scratch)
    assert result.status is Status.PASS, result.reason
    assert result.profile is not None and result.profile.intermediates is not None
    comparison = result.profile.intermediates
    assert comparison["departure"] is None and comparison["compared"] >= 6
    assert "equals the exact reference" in result.classification.details["intermediates"]
    shown = format_result(result)   # what `invoke run --intermediates` prints
    assert re.search(rf"^intermediates +{comparison['compared']} operators compared, none "
                     "departs$", shown, re.MULTILINE), shown
    check_the_summary_shows_the_heaviest_operators(result)
    assert Path(result.artifacts["debug_buffer"]).stat().st_size > 0
