"""`invoke run --elf` replays: an upstream-built runner ELF run through the real process layer
and FVP command line against a replay stand-in that plays real recorded FVP transcripts
(tests/fixtures/transcripts, sources in INDEX.md), then read by the upstream log parser."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from fvp_replay_install import install_replay, invocation

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunRequest, run_command
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.results import Kind, RunResult, Status
from orchestrator.results.schema import validation_errors
from orchestrator.setup.execstack import EXECSTACK_TUNABLE
from orchestrator.setup.lock import write_lock_entry
from orchestrator.sim.fvp_run import setup_artifact
from orchestrator.targets import load_catalogue

RECORDED_VERSION = "11.27.25"


def setup_replay(work: Scratch, target: str, transcript: str, exit_code: int = 0,
                 env: dict[str, str] | None = None, **pace: float) -> Path:
    """Install a replay FVP for the target's first FVP and record it as setup would."""
    simulator = next(s for s in load_catalogue().target(target).simulators if s.kind == "fvp")
    artifact = setup_artifact(simulator)
    binary = install_replay(work.tools / artifact, simulator.name, transcript, exit_code, **pace)
    write_lock_entry(work, artifact, {
        "kind": "fvp", "usable": True, "binaries": {simulator.binary: str(binary)},
        "env": env if env is not None else {"GLIBC_TUNABLES": EXECSTACK_TUNABLE},
        "reported_version": RECORDED_VERSION})
    return binary


def elf_file(tmp_path: Path) -> Path:
    elf = tmp_path / "arm_executor_runner"
    elf.write_bytes(b"\x7fELF" + b"\0" * 60)
    return elf


def run_elf(work: Scratch, target: str, elf: Path, data: list[str] | None = None,
            sim: str | None = None, timeout_s: float = 20.0) -> RunResult:
    request = RunRequest(target=target, app="elf", sim=sim, timeout_s=timeout_s,
                         idle_timeout_s=10.0, elf=str(elf), data=tuple(data or ()))
    return execute(request, work)


def command_of(result: RunResult) -> list[str]:
    return shlex.split(Path(result.artifacts["command"]).read_text())


@pytest.fixture
def work(tmp_path: Path) -> Scratch:
    return scratch(tmp_path / "scratch").ensure()


@pytest.mark.slow
def test_replay_upstream_success_with_pmu_block_is_a_pass_with_counters(work, tmp_path):
    setup_replay(work, "ethos-u85-128", "et-docs-v0.5.0-1.log")
    result = run_elf(work, "ethos-u85-128", elf_file(tmp_path))
    assert result.status is Status.PASS and result.classification.kind is Kind.SUCCESS
    assert result.source == "upstream-elf"
    assert result.npu.cycles == 5920305
    assert [(c.event, c.value) for c in result.npu.counters] == [
        ("ETHOSU_PMU_EXT0_RD_DATA_BEAT_RECEIVED", 359921),
        ("ETHOSU_PMU_EXT1_RD_DATA_BEAT_RECEIVED", 0),
        ("ETHOSU_PMU_EXT0_WR_DATA_BEAT_WRITTEN", 0), ("ETHOSU_PMU_NPU_IDLE", 503)]
    assert result.cpu.total == 6925114
    assert result.outputs[0].values[:3] == [-0.749744, -0.019224, 0.134570]
    assert result.target.name == "ethos-u85-128"
    assert result.target.simulator == "fvp-corstone-320"
    assert result.target.options["num_macs"] == 128
    assert result.versions.simulator == "FVP_Corstone_SSE-320"
    assert result.versions.simulator_version == RECORDED_VERSION
    assert result.simulation.exit_code == 0
    run_dir = work.runs / result.run_id
    document = json.loads((run_dir / "result.json").read_text())
    assert validation_errors(document) == []
    saved = RunResult.from_dict(document)
    assert saved.status is Status.PASS and saved.npu.cycles == 5920305
    transcript = (run_dir / "transcript.log").read_text()
    assert "Ethos-U PMU report" in transcript
    assert result.artifacts["transcript"] == str(run_dir / "transcript.log")


@pytest.mark.slow
def test_replay_u85_command_line_from_command_txt(work, tmp_path):
    binary = setup_replay(work, "ethos-u85-128", "et-docs-v0.5.0-1.log")
    elf = elf_file(tmp_path)
    model = tmp_path / "model.pte"
    model.write_bytes(b"\0" * 32)
    result = run_elf(work, "ethos-u85-128", elf, data=[f"{model}@0x70000000"], timeout_s=30)
    argv = command_of(result)
    assert argv[0] == str(binary)
    params = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-C"]
    for expected in ("mps4_board.subsystem.ethosu.num_macs=128",
                     "mps4_board.visualisation.disable-visualisation=1",
                     "mps4_board.telnetterminal0.start_telnet=0",
                     "mps4_board.uart0.out_file=-", "mps4_board.uart0.shutdown_on_eot=1",
                     "vis_hdlcd.disable_visualisation=1"):
        assert expected in params
    assert argv[argv.index("-a") + 1] == str(elf.resolve())
    assert argv[argv.index("--data") + 1] == f"{model.resolve()}@0x70000000"
    assert argv[argv.index("--timelimit") + 1] == "30"
    assert invocation(binary)["argv"][1:] == argv[1:]   # what ran is what command.txt says


@pytest.mark.slow
def test_replay_u55_command_line_and_cpu_time_limit(work, tmp_path):
    binary = setup_replay(work, "ethos-u55-128", "et-issue-7568-1.log")
    elf = elf_file(tmp_path)
    data = [tmp_path / "model.pte", tmp_path / "input.bin"]
    for item in data:
        item.write_bytes(b"\0" * 16)
    result = run_elf(work, "ethos-u55-128", elf,
                     data=[f"{data[0]}@0x70000000", f"{data[1]}@1879048192"])
    argv = command_of(result)
    assert argv[0] == str(binary) and Path(argv[0]).name == "FVP_Corstone_SSE-300_Ethos-U55"
    params = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-C"]
    for expected in ("ethosu.num_macs=128", "mps3_board.visualisation.disable-visualisation=1",
                     "mps3_board.telnetterminal0.start_telnet=0", "mps3_board.uart0.out_file=-",
                     "mps3_board.uart0.shutdown_on_eot=1"):
        assert expected in params
    assert argv[argv.index("-a") + 1] == str(elf.resolve())
    loaded = [argv[i + 1] for i, arg in enumerate(argv) if arg == "--data"]
    assert loaded == [f"{data[0].resolve()}@0x70000000", f"{data[1].resolve()}@0x70000000"]
    assert argv[argv.index("--timelimit") + 1] == "20"   # the run's limit; host kills later
    assert result.status is Status.TIMEOUT
    assert result.classification.kind is Kind.CPU_TIME_LIMIT
    assert result.classification.next_step == "raise --timeout (now 20 s, from --timeout)"
    assert result.simulation.stop_reason == "CPU time has been exceeded"
    assert result.simulation.exit_code == 0


@pytest.mark.slow
def test_replay_false_green_never_launched_fvp_is_a_launch_failure(work, tmp_path):
    # run_fvp.sh printed "Simulation complete, 0" and "No problems found!" although the FVP
    # binary could not execute (et-issue-22316-1): exit 0, still not a pass.
    setup_replay(work, "ethos-u55-128", "et-issue-22316-1.log")
    result = run_elf(work, "ethos-u55-128", elf_file(tmp_path))
    assert result.simulation.exit_code == 0
    assert result.status is Status.ERROR
    assert result.classification.kind is Kind.LAUNCH_FAILURE
    assert "not a pass" in result.reason


@pytest.mark.slow
def test_replay_recorded_setup_environment_is_what_the_fvp_gets(work, tmp_path):
    recorded = {"PYTHONHOME": "/opt/fvp/python", "LD_LIBRARY_PATH": "/opt/fvp/python/lib"}
    binary = setup_replay(work, "ethos-u85-128", "et-docs-v0.5.0-1.log", env=recorded)
    run_elf(work, "ethos-u85-128", elf_file(tmp_path))
    env = invocation(binary)["env"]
    assert env["PYTHONHOME"] == recorded["PYTHONHOME"]
    assert env["LD_LIBRARY_PATH"] == recorded["LD_LIBRARY_PATH"]
    assert "GLIBC_TUNABLES" not in env       # the probe ran without it: no guess added


@pytest.mark.slow
def test_replay_run_command_prints_table_and_verdict(work, tmp_path, monkeypatch, capsys):
    setup_replay(work, "ethos-u85-128", "et-docs-v0.5.0-1.log")
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(work.root))
    code = run_command(RunRequest(target="ethos-u85-128", elf=str(elf_file(tmp_path)),
                                  timeout_s=20.0))
    out = capsys.readouterr().out
    assert code == 0
    assert "NPU 5,920,305" in out and "PASS (success)" in out
    code = run_command(RunRequest(target="ethos-u85-128", elf=str(elf_file(tmp_path))),
                       json=True)
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["source"] == "upstream-elf"


def test_npu_target_on_qemu_is_refused_with_the_reason(work, tmp_path):
    with pytest.raises(OrchestratorError) as caught:
        run_elf(work, "ethos-u55-128", elf_file(tmp_path), sim="qemu")
    assert "has no Ethos-U NPU" in caught.value.cause
    assert "--sim fvp" in caught.value.next_step
    assert not any(work.runs.iterdir())


def test_missing_fvp_names_the_setup_command(work, tmp_path):
    with pytest.raises(OrchestratorError) as caught:
        run_elf(work, "ethos-u55-128", elf_file(tmp_path))
    assert caught.value.next_step == "invoke setup --only fvp-corstone-300"


@pytest.mark.parametrize("spec", ["nofile@0x10", "{model}@zz", "{model}", "{model}@-1"])
def test_bad_data_items_are_refused(work, tmp_path, spec):
    model = tmp_path / "model.pte"
    model.write_bytes(b"\0")
    with pytest.raises(OrchestratorError) as caught:
        run_elf(work, "ethos-u85-128", elf_file(tmp_path), data=[spec.format(model=model)])
    assert "--data" in caught.value.cause


def test_a_file_that_is_not_an_elf_is_refused(work, tmp_path):
    text = tmp_path / "runner.txt"
    text.write_text("not an ELF")
    with pytest.raises(OrchestratorError) as caught:
        run_elf(work, "ethos-u85-128", text)
    assert "is not an ELF file" in caught.value.cause
