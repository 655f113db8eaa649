"""FVP replays for issue 25's rule on our own run path: once the firmware has printed, no
launcher line makes the run "never started". The replay stand-in plays a transcript through
the real process layer, FVP command line, protocol parser, verdict and explain_fvp_stop, all
via run_firmware (the path every FVP run of our firmware takes). The FVP itself cannot run
here.

No recorded FVP log has both a launcher complaint and firmware output (tests/fixtures/
transcripts/INDEX.md, "Described, not saved"), so the faulting one is spliced from real lines:
the launcher line quoted in issue 25 (`sh: xterm: command not found`), the Corstone-300 FVP's
start-up lines of et-issue-7568-1 and our selftest firmware's recorded fault
(tests/fixtures/protocol/qemu-selftest-fault.log). The launcher-only transcript is recorded
as is (et-issue-22316-2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fvp_replay_install import TRANSCRIPTS, install_replay
from test_fvp_replays import replay_plan

from orchestrator.firmware.build.config import BuildConfig
from orchestrator.firmware.build.driver import BuildResult
from orchestrator.firmware.run import run_firmware
from orchestrator.results import Kind, RunResult, Status
from orchestrator.sim.kinds import SimOptions
from orchestrator.targets import load_catalogue

SIMULATOR = "fvp-corstone-300-u55"
XTERM_MISSING = "sh: xterm: command not found"
PROTOCOL = TRANSCRIPTS.parent / "protocol"
SELFTEST_FAULT = PROTOCOL / "qemu-selftest-fault.log"
SELFTEST_BUILD_ID = "57b1d2c714a0539849ab8540e5ddb56218243f78"   # its begin record's build id
FVP_START_LINES = 4   # et-issue-7568-1: its four telnetterminal lines, after the build lines


def fvp_start_lines() -> list[str]:
    lines = (TRANSCRIPTS / "et-issue-7568-1.log").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("telnetterminal0"))
    return lines[start:start + FVP_START_LINES]


def replayed_run(tmp_path: Path, transcript: Path, exit_code: int) -> RunResult:
    """The RunResult run_firmware gives for a selftest ELF the replay stand-in 'runs'."""
    simulator = load_catalogue().simulators[SIMULATOR]
    binary = install_replay(tmp_path, SIMULATOR, str(transcript), exit_code)
    plan = replay_plan(simulator, binary, SimOptions(timeout_s=20.0, idle_timeout_s=10.0))
    elf = tmp_path / "selftest.elf"
    elf.write_bytes(b"\x7fELF")
    build = BuildResult(
        config=BuildConfig(app="selftest", platform=plan.target.platform), build_dir=tmp_path,
        elf=elf, map_file=tmp_path / "selftest.map", build_id=SELFTEST_BUILD_ID, sections=(),
        regions=(), layout={}, configured=False, rebuilt=False, toolchain_version="",
        seconds={"configure": 0.0, "build": 0.0})
    return run_firmware(plan, build, tmp_path / "run", "replay").result


@pytest.mark.slow
def test_replay_launcher_complaint_then_firmware_fault_is_the_fault(tmp_path):
    spliced = tmp_path / "xterm-then-selftest-fault.log"
    spliced.write_text("\n".join([XTERM_MISSING, *fvp_start_lines(),
                                  SELFTEST_FAULT.read_text()]))
    result = replayed_run(tmp_path, spliced, 0)
    classification = result.classification
    assert (result.status, classification.kind) == (Status.ERROR, Kind.HARD_FAULT)
    assert classification.details["registers"]["pc"] == 0x10000aba
    assert classification.details["address"] == 0x0c000000
    assert "fvp_stop" not in classification.details
    [secondary] = classification.details["secondary"]
    assert secondary["kind"] == "launch_failure" and secondary["line"] == XTERM_MISSING
    assert secondary["line_number"] == 1 and secondary["cause"] == "launcher_command_missing"
    assert "the firmware printed" in secondary["note"]


@pytest.mark.slow
def test_replay_launcher_complaint_alone_stays_a_launch_failure(tmp_path):
    result = replayed_run(tmp_path, TRANSCRIPTS / "et-issue-22316-2.log", 0)
    classification = result.classification
    assert (result.status, classification.kind) == (Status.ERROR, Kind.LAUNCH_FAILURE)
    assert classification.evidence == ["docker: command not found"]
    assert "docker" in classification.next_step
    assert "secondary" not in classification.details



@pytest.mark.slow
def test_replay_launcher_complaint_then_firmware_stopped_at_the_limit_is_the_limit(tmp_path):
    # The selftest's banner and begin record, then et-issue-7568-1's CPU time stop lines.
    firmware = SELFTEST_FAULT.read_text().splitlines()[:2]
    fvp = (TRANSCRIPTS / "et-issue-7568-1.log").read_text().splitlines()
    stop = next(i for i, line in enumerate(fvp) if line.startswith("Info: Simulation is stop"))
    spliced = tmp_path / "xterm-then-selftest-begin-then-limit.log"
    spliced.write_text("\n".join([XTERM_MISSING, *fvp_start_lines(), *firmware,
                                  *fvp[stop:]]) + "\n")
    result = replayed_run(tmp_path, spliced, 0)
    classification = result.classification
    assert (result.status, classification.kind) == (Status.TIMEOUT, Kind.CPU_TIME_LIMIT)
    assert classification.details["fvp_stop"] == "cpu_time_limit"
    assert classification.details["secondary"][0]["line"] == XTERM_MISSING
