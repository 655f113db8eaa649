"""FVP replays: the real process layer and FVP command line run against a replay stand-in
that plays real recorded FVP transcripts (tests/fixtures/transcripts, sources in INDEX.md)
with start-up delay, pacing and exit status. The FVP itself cannot run here."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fvp_replay_install import install_replay, invocation

from orchestrator.foundation.paths import scratch
from orchestrator.options.fvp import FvpExtras
from orchestrator.results import Classification, Kind, RunResult, Simulation, Status
from orchestrator.setup import execstack
from orchestrator.setup.execstack import EXECSTACK_TUNABLE
from orchestrator.setup.lock import write_lock_entry
from orchestrator.sim.data import DataFile
from orchestrator.sim.fvp_run import explain_fvp_stop, fvp_stop
from orchestrator.sim.kinds import SimOptions
from orchestrator.sim.plan import place, plan_placed, simulator_binary
from orchestrator.sim.session import simulate
from orchestrator.targets import load_catalogue


def replay(tmp_path: Path, simulator_name: str, transcript: str, exit_code: int,
           deadline_s: float = 20.0, idle_s: float = 10.0, **pace: float):
    simulator = load_catalogue().simulators[simulator_name]
    binary = install_replay(tmp_path, simulator_name, transcript, exit_code, **pace)
    elf = tmp_path / "runner.elf"
    elf.write_bytes(b"\x7fELF")
    data = [DataFile(tmp_path / "model_area.bin", 0x70000000),
            DataFile(tmp_path / "input_area.bin", 0x72000000)]
    for item in data:
        item.path.write_bytes(b"\0" * 64)
    run_dir = tmp_path / "run"
    result = simulate(replay_plan(simulator, binary, SimOptions(
        timeout_s=deadline_s, idle_timeout_s=idle_s, macs=128, fvp=FvpExtras(fast=True))), elf,
        run_dir, data=data)
    return result, invocation(binary), binary


def replay_plan(simulator, binary, options, work=None):
    """A run plan for the replay stand-in: a catalogue target the simulator runs, placed on
    it, with the stand-in as its binary."""
    target = next(t for t in load_catalogue().targets.values()
                  if simulator in t.simulators and t.has_npu)
    return plan_placed(work, place(target, simulator.name), options, binary=binary)


def as_run_result(simulation) -> RunResult:
    verdict = simulation.verdict
    return RunResult(status=Status(verdict.status), reason=verdict.summary,
                     classification=Classification(kind=Kind.UNKNOWN, summary=verdict.summary,
                                                   next_step="-"),
                     simulation=Simulation(exit_code=simulation.outcome.exit_code))


@pytest.mark.slow
def test_replay_corstone320_command_line_and_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(execstack, "glibc_version", lambda text=None: (2, 42))
    result, invocation, binary = replay(tmp_path, "fvp-corstone-320", "et-docs-v0.5.0-1.log", 0)
    argv = invocation["argv"]
    params = [argv[i + 1] for i, arg in enumerate(argv) if arg == "-C"]
    for expected in ("mps4_board.subsystem.ethosu.num_macs=128",
                     "mps4_board.visualisation.disable-visualisation=1",
                     "vis_hdlcd.disable_visualisation=1",
                     "mps4_board.telnetterminal0.start_telnet=0",
                     "mps4_board.uart0.out_file=-", "mps4_board.uart0.shutdown_on_eot=1",
                     "mps4_board.uart0.unbuffered_output=1",
                     "mps4_board.subsystem.cpu0.semihosting-enable=1",
                     "mps4_board.subsystem.ethosu.extra_args=--fast"):
        assert expected in params
    assert argv[argv.index("-a") + 1].endswith("runner.elf")
    assert f"{tmp_path / 'model_area.bin'}@0x70000000" in argv
    assert f"{tmp_path / 'input_area.bin'}@0x72000000" in argv
    assert argv[argv.index("--timelimit") + 1] == "20"   # the run's limit; host kills later
    env = invocation["env"]
    assert env["GLIBC_TUNABLES"] == EXECSTACK_TUNABLE
    assert env["LD_LIBRARY_PATH"] == str(binary.parents[2] / "python" / "lib")
    assert env["PYTHONHOME"] == str(binary.parents[2] / "python")   # as setup records it
    assert Path(invocation["cwd"]) == tmp_path / "run"


@pytest.mark.slow
def test_replay_upstream_success_with_exit_zero_is_not_our_success(tmp_path):
    # A real U85 success transcript of upstream's runner, FVP exit 0: no protocol records
    # from our runner, so it must not count as a pass (exit status alone proves nothing).
    result, _, _ = replay(tmp_path, "fvp-corstone-320", "et-docs-v0.5.0-1.log", 0)
    assert result.outcome.exit_code == 0 and result.outcome.stopped_by is None
    assert result.verdict.status != "pass" and result.verdict.cause == "no_output"
    assert "Ethos-U PMU report" in result.outcome.transcript
    assert (tmp_path / "run" / "transcript.log").read_text() == result.outcome.transcript


@pytest.mark.slow
def test_replay_cpu_time_limit_is_classified(tmp_path):
    result, invocation, _ = replay(tmp_path, "fvp-corstone-300-u55", "et-issue-7568-1.log", 0)
    assert "ethosu.num_macs=128" in invocation["argv"]
    stop = fvp_stop(result.outcome.transcript)
    assert stop is not None and stop.kind == "cpu_time_limit"
    explained = explain_fvp_stop(as_run_result(result), result.outcome.transcript)
    assert explained.status is Status.TIMEOUT
    assert explained.classification.kind is Kind.CPU_TIME_LIMIT
    assert explained.simulation.stop_reason == "CPU time has been exceeded"
    assert "--timeout" in explained.classification.next_step


@pytest.mark.slow
def test_replay_fvp_that_never_launched_is_a_launch_failure_despite_exit_zero(tmp_path):
    result, _, _ = replay(tmp_path, "fvp-corstone-300-u55", "et-issue-22316-1.log", 0)
    assert result.outcome.exit_code == 0
    explained = explain_fvp_stop(as_run_result(result), result.outcome.transcript)
    assert explained.status is Status.ERROR
    assert explained.classification.kind is Kind.LAUNCH_FAILURE
    assert "cannot run on this host" in explained.reason


@pytest.mark.slow
def test_replay_execstack_refusal_names_glibc(tmp_path):
    result, _, _ = replay(tmp_path, "fvp-corstone-300-u65", "lp-issue-2038-1.log", 1)
    assert result.outcome.exit_code == 1
    explained = explain_fvp_stop(as_run_result(result), result.outcome.transcript)
    assert explained.classification.kind is Kind.LAUNCH_FAILURE
    assert "executable-stack" in explained.reason


@pytest.mark.slow
def test_replay_silent_fvp_is_stopped_by_the_watchdog_without_orphans(tmp_path):
    result, invocation, _ = replay(tmp_path, "fvp-corstone-300-u55", "et-issue-7568-1.log", 0,
                                   deadline_s=15.0, idle_s=1.0, hang_s=30.0)
    assert result.outcome.stopped_by == "no_output"
    assert result.verdict.cause == "hang"
    with pytest.raises(ProcessLookupError):
        os.kill(result.outcome.pid, 0)



@pytest.mark.slow
def test_replay_protocol_runs_get_the_environment_setup_recorded(tmp_path):
    # selftest / runner runs: the U55 FVP is found under setup's fvp-corstone-300 item and
    # started with the environment its probe recorded, not with the guess.
    work = scratch(tmp_path / "scratch").ensure()
    binary = install_replay(work.tools / "fvp-corstone-300", "fvp-corstone-300-u55",
                            "et-issue-7568-1.log", 0)
    write_lock_entry(work, "fvp-corstone-300", {
        "kind": "fvp", "usable": True, "binaries": {binary.name: str(binary)},
        "env": {"LD_LIBRARY_PATH": "/recorded/lib"}})
    simulator = load_catalogue().simulators["fvp-corstone-300-u55"]
    assert simulator_binary(work, simulator) == binary
    elf = tmp_path / "runner.elf"
    elf.write_bytes(b"\x7fELF")
    simulate(replay_plan(simulator, simulator_binary(work, simulator),
                         SimOptions(timeout_s=20.0, idle_timeout_s=10.0), work),
             elf, tmp_path / "run")
    env = invocation(binary)["env"]
    assert env["LD_LIBRARY_PATH"] == "/recorded/lib"
    assert "GLIBC_TUNABLES" not in env and "PYTHONHOME" not in env
