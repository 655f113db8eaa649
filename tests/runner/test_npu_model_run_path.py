"""The run path of NPU targets on the NPU model: the target placed on QEMU's
platform, the runner build configured for the model (no core driver, no PMU), the missing-FVP
error naming both fixes, and the RunResult naming the NPU executor (protocol records made with
the protocol's own encoder, parsed by the real parser)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunRequest
from orchestrator.firmware.build import config_for_target
from orchestrator.firmware.build.npu_model import EXECUTOR_MODEL, model_version, placed_model
from orchestrator.firmware.npu_model_facts import (
    MODEL_DEFINITION,
    apply_npu_model_facts,
    device_npu,
    explain_npu_model_refusal,
    label_emulated_npu_cycles,
    npu_model_record,
    runs_npu_model,
)
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.parse.protocol_values import CYCLE_NOTES
from orchestrator.protocol import ParsedStream
from orchestrator.protocol.frame import encode_frame
from orchestrator.protocol.stream import parse_text
from orchestrator.regress.verdict.metrics import extract_metrics
from orchestrator.results import (
    Classification,
    CpuCycles,
    Kind,
    NpuPmu,
    PmuCounter,
    RunResult,
    Simulation,
    Status,
)
from orchestrator.results.schema import validation_errors
from orchestrator.results.summary_table import format_result, summary_rows
from orchestrator.runner.config import memory_mode_of, pools_for
from orchestrator.runner.failure_causes import explain_exit
from orchestrator.runner.firmware import RunnerOptions, runner_build_config
from orchestrator.runner.model_run import npu_axi_record
from orchestrator.sim.plan import place
from orchestrator.sim.select import choose_simulator, placed_on
from orchestrator.targets import Target, load_catalogue


def on_qemu(name: str) -> Target:
    catalogue = load_catalogue()
    target = catalogue.target(name)
    return placed_on(target, choose_simulator(target, "qemu"))


def build_values(name: str) -> dict[str, str]:
    target = on_qemu(name)
    mode = memory_mode_of(target, None)
    config = runner_build_config(target, RunnerOptions(mode, pools_for(mode)),
                                 Path("/nonexistent/runtime"), None)
    assert config.platform.name == "mps3-an547" and config.npu_config == name
    return dict(config.options)


def test_npu_target_on_qemu_moves_to_the_models_platform() -> None:
    target = on_qemu("ethos-u55-128")
    assert target.platform.name == "mps3-an547" and target.macs == 128
    assert [sim.name for sim in target.simulators] == ["qemu"]
    assert placed_model(target) is not None
    assert placed_model(load_catalogue().target("ethos-u55-128")) is None


def test_runner_build_links_the_model_with_the_catalogue_config() -> None:
    values = build_values("ethos-u55-128")
    assert values["EOR_RUNNER_NPU_EXECUTOR"] == "model"
    assert (values["EOR_NPU_MODEL_ARCH"], values["EOR_NPU_MODEL_MACS"],
            values["EOR_NPU_MODEL_CORES"]) == ("55", "128", "1")
    assert values["EOR_NPU_MODEL_VERSION"] == model_version()
    assert not any(key in values for key in ("EOR_RUNNER_NPU_BASE", "EOR_RUNNER_PMU_EVENTS",
                                             "EOR_RUNNER_ETHOSU_DRIVER"))
    dual = build_values("ethos-u65-512")
    assert (dual["EOR_NPU_MODEL_ARCH"], dual["EOR_NPU_MODEL_MACS"],
            dual["EOR_NPU_MODEL_CORES"]) == ("65", "256", "2")   # MACs per core


def test_model_version_names_the_model_and_its_sources() -> None:
    assert model_version().startswith("npu_model ")
    assert len(model_version().rsplit("+", 1)[1]) == 12


@pytest.mark.parametrize(("target", "fvp", "artifact"), [
    ("ethos-u55-128", "fvp-corstone-300-u55", "fvp-corstone-300"),
    ("ethos-u85-128", "fvp-corstone-320", "fvp-corstone-320")])
def test_run_without_the_fvp_names_both_fixes(tmp_path: Path, target: str, fvp: str,
                                              artifact: str) -> None:
    """Nothing is compiled or built first: the run stops at the missing simulator."""
    with pytest.raises(OrchestratorError) as caught:
        execute(RunRequest(target=target, app="runner", model="mv2"), scratch(tmp_path))
    message = caught.value.message
    assert "\n" not in message
    assert f"{fvp} is not set up" in message
    assert f"invoke setup --only {artifact}" in message
    assert f"invoke run --target {target} --model mv2 --sim qemu" in message
    assert "NPU model" in message
    assert not any((tmp_path / "models").iterdir())


def stream_of(*records: tuple[str, dict[str, object]]) -> ParsedStream:
    return parse_text("\n".join(encode_frame(kind, fields) for kind, fields in records) + "\n")


MODEL_REPORT: tuple[tuple[str, dict[str, object]], ...] = (
    ("note", {"npu_executor": EXECUTOR_MODEL, "npu_model_version": "npu_model x",
              "npu_config": "ethos-u55-128"}),
    ("metric", {"name": "npu_delegations", "value": 1, "unit": "count",
                "source": "npu_model"}))


def test_result_names_the_npu_model_and_invents_no_counters() -> None:
    npu = npu_model_record(stream_of(*MODEL_REPORT))
    assert npu is not None
    assert (npu.executor, npu.executor_version) == (EXECUTOR_MODEL, "npu_model x")
    assert npu.cycles is None and npu.counters == [] and npu.delegations == 1
    result = RunResult(status=Status.PASS, reason="ok", classification=Classification(
        kind=Kind.SUCCESS, summary="ok", next_step="none"), npu=npu)
    document = result.to_dict()
    assert validation_errors(document) == []
    assert document["npu"]["executor"] == "npu-model"
    assert "NPU model npu_model x" in format_result(result)



def test_baselines_take_npu_metrics_from_the_fvp_only() -> None:
    def metrics(executor: str) -> dict[str, float]:
        npu = NpuPmu(cycles=5000, counters=[PmuCounter(0, 7, "ETHOSU_PMU_NPU_IDLE")],
                     executor=executor)
        return extract_metrics(RunResult(status=Status.PASS, reason="ok", npu=npu,
                                         classification=Classification(
                                             kind=Kind.SUCCESS, summary="ok", next_step="-")))
    assert metrics("fvp")["npu.cycles"] == 5000
    assert not any(name.startswith(("npu.", "pmu.")) for name in metrics(EXECUTOR_MODEL))


def systick_run(executor: str | None) -> RunResult:
    """A passing QEMU run with SysTick CPU cycles; the NPU run by `executor` (None: no NPU)."""
    npu = NpuPmu(executor=executor) if executor else None
    cpu = CpuCycles(source="systick", note=CYCLE_NOTES["systick"], total=155_576_987)
    result = RunResult(status=Status.PASS, reason="ok", npu=npu, cpu=cpu, classification=
                       Classification(kind=Kind.SUCCESS, summary="ok", next_step="-"))
    label_emulated_npu_cycles(result)
    return result


def test_cpu_cycles_of_a_npu_model_run_say_they_include_the_emulated_npu() -> None:
    result = systick_run(EXECUTOR_MODEL)
    assert result.cpu is not None and result.cpu.includes_npu_model is True
    assert "NPU model emulating the Ethos-U" in result.cpu.note
    document = result.to_dict()
    assert validation_errors(document) == [] and document["cpu"]["includes_npu_model"] is True
    label = "CPU + NPU model emulating the NPU: not timing"
    assert label in dict(summary_rows(result))["cycles"]
    assert f"155576987 systick, {label}" in format_result(result)


def test_regress_keeps_no_cycles_of_a_npu_model_run() -> None:
    assert not any(name.startswith(("cpu.", "npu.", "pmu."))
                   for name in extract_metrics(systick_run(EXECUTOR_MODEL)))
    for plain in (systick_run(None), systick_run("fvp")):
        assert plain.cpu is not None and plain.cpu.includes_npu_model is None
        assert extract_metrics(plain)["cpu.cycles"] == 155_576_987
        assert "includes" not in plain.cpu.note


def test_fvp_result_says_fvp() -> None:
    stream = stream_of(("metric", {"name": "ethosu_pmu_cycle_cntr", "value": 1234,
                                   "unit": "cycles", "source": "ethosu_pmu"}))
    npu = device_npu(stream, load_catalogue().target("ethos-u55-128"))
    assert npu is not None and npu.executor == "fvp" and npu.cycles == 1234


@pytest.mark.parametrize(("target", "fvp_setup"), [
    ("ethos-u55-128", "invoke setup --only fvp-corstone-300, then --sim fvp"),
    ("ethos-u85-128", "invoke setup --only fvp-corstone-320, then --sim fvp")])
def test_model_refusal_is_an_npu_error_naming_the_reason(target: str, fvp_setup: str) -> None:
    reason = f"NPU model ({target}): COP1 config ethos-u65-256 != {target}"
    stream = stream_of(("note", {"message": reason, "npu_executor": EXECUTOR_MODEL,
                                 "npu_config": target, "npu_model_code": 3}))
    failed = RunResult(status=Status.FAIL, reason="x", classification=Classification(
        kind=Kind.EXECUTION_FAILURE, summary="x", next_step="y"))
    result = explain_npu_model_refusal(failed, stream)
    assert result.classification.kind is Kind.NPU_ERROR and result.reason == reason
    assert f"invoke compile --target {target}" in result.classification.next_step
    assert result.classification.next_step.endswith(fvp_setup)


def test_npu_model_result_names_the_cpu_that_ran_it() -> None:
    """QEMU runs a U85 target on mps3-an547's M55: the result says so, not the M85."""
    u85 = systick_run(EXECUTOR_MODEL)
    label_emulated_npu_cycles(u85, on_qemu("ethos-u85-128"))
    assert u85.target.options["cpu"] == "cortex-m55"
    assert u85.target.options["cpu_note"] == (
        "the cortex-m55 of mps3-an547 ran the program and the NPU model, not "
        "ethos-u85-128's own cortex-m85 (corstone-320)")
    assert f"cpu ran  {u85.target.options['cpu_note']}" in format_result(u85)
    u55 = systick_run(EXECUTOR_MODEL)
    label_emulated_npu_cycles(u55, on_qemu("ethos-u55-128"))
    assert u55.target.options["cpu"] == "cortex-m55" and "cpu_note" not in u55.target.options
    assert "cpu ran" not in format_result(u55)


def test_timing_adapters_are_recorded_only_where_a_device_is_driven() -> None:
    """The NPU model has no AXI ports: no timing-adapter record, and no error asking
    for mps3-an547 timing-adapter bases; the FVP build of the same target records them."""
    placed = on_qemu("ethos-u55-128")
    assert npu_axi_record(placed, memory_mode_of(placed, None), fast=False) is None
    on_fvp = load_catalogue().target("ethos-u55-128")
    record = npu_axi_record(on_fvp, memory_mode_of(on_fvp, None), fast=False)
    assert record is not None and record["timing_adapters_in_effect"] is True
    assert npu_axi_record(load_catalogue().target("cortex-m55"), "Shared_Sram", False) is None


def test_the_npu_model_is_decided_from_the_plan_and_the_build() -> None:
    """The runner built for a target placed on QEMU embeds the model and its plan names it the
    executor: the facts apply; the selftest built for the same placement does not embed it."""
    placement = place(load_catalogue().target("ethos-u55-128"), "qemu")
    assert placement.npu_executor == EXECUTOR_MODEL
    runner = runner_build_config(placement.target, RunnerOptions(
        memory_mode_of(placement.target, None), pools_for(memory_mode_of(placement.target,
                                                                          None))),
        Path("/nonexistent/runtime"), None)
    assert MODEL_DEFINITION in dict(runner.options)
    assert runs_npu_model(placement.npu_executor, runner)
    selftest = config_for_target(placement.target, app="selftest")
    assert not runs_npu_model(placement.npu_executor, selftest)
    assert not runs_npu_model("fvp", runner)


def test_a_runner_exit_does_not_hide_the_models_refusal() -> None:
    reason = "NPU model (ethos-u55-128): unimplemented command 0x4242"
    stream = stream_of(("note", {"message": reason, "npu_executor": EXECUTOR_MODEL,
                                 "npu_config": "ethos-u55-128", "npu_model_code": 4}))
    failed = RunResult(status=Status.FAIL, reason="x", classification=Classification(
        kind=Kind.EXECUTION_FAILURE, summary="x", next_step="y"))
    refused = explain_npu_model_refusal(failed, stream)
    refused.simulation = Simulation(exit_code=12)
    assert explain_exit(refused, stream, "convnet") is refused


def test_a_protocol_app_placed_on_the_models_platform_gets_no_npu_record() -> None:
    """The selftest built for an NPU target on QEMU runs no NPU: no record, no label; the
    runner built for the same placement gets the model's record and label."""
    placement = place(load_catalogue().target("ethos-u55-128"), "qemu")
    plan = SimpleNamespace(npu_executor=placement.npu_executor, target=placement.target)
    stream = stream_of(*MODEL_REPORT)

    def applied(config: Any) -> RunResult:
        result = systick_run(None)
        return apply_npu_model_facts(result, plan, SimpleNamespace(config=config), stream)

    selftest = applied(config_for_target(placement.target, app="selftest"))
    assert selftest.npu is None and selftest.cpu is not None
    assert selftest.cpu.includes_npu_model is None
    mode = memory_mode_of(placement.target, None)
    runner = applied(runner_build_config(placement.target, RunnerOptions(mode, pools_for(mode)),
                                         Path("/nonexistent/runtime"), None))
    assert runner.npu is not None and runner.npu.executor == EXECUTOR_MODEL
    assert runner.cpu is not None and runner.cpu.includes_npu_model is True



def test_model_version_is_kept_by_its_sources_content(tmp_path: Path, monkeypatch) -> None:
    """Read back while the sources are unchanged; an edited source gives another digest."""
    import shutil

    from orchestrator.npu_model import version

    monkeypatch.setenv("ETHOSU_ORCH_CACHE_DIR", str(tmp_path / "cache"))
    copy = tmp_path / "firmware"
    for tree in version.MODEL_TREES:
        shutil.copytree(version.FIRMWARE_DIR / tree, copy / tree)
    monkeypatch.setattr(version, "FIRMWARE_DIR", copy)
    version.model_version.cache_clear()
    first = version.model_version()
    assert first == version._model_version()
    source = next(p for p in sorted((copy / "ethosu_shim").rglob("*")) if p.is_file())
    source.write_bytes(source.read_bytes() + b"\n")
    version.model_version.cache_clear()
    edited = version.model_version()
    version.model_version.cache_clear()
    assert edited != first and edited == version._model_version()
