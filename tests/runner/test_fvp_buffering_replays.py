"""Buffering replays: a real recorded Corstone-320 success transcript (et-docs-v0.5.0-1.log,
tests/fixtures/transcripts/INDEX.md) played by the replay stand-in with C stdio buffering
(line-buffered on a terminal, 4 KiB blocks on a pipe) and a realistic silence while the NPU
computes (21 s: longer than the old 20 s no-output watchdog), through the real process layer
and the real upstream log parser. The FVP itself cannot run here.

With the new defaults (pseudo-terminal, FVP limits from the catalogue: 600 s, no watchdog)
the run passes; read the old way (a pipe, 60 s deadline, 20 s watchdog) the same run is
killed as a silent hang with nothing read: both run at once to keep the test ~22 s."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import pytest
from fvp_replay_install import install_replay, invocation

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunRequest
from orchestrator.foundation.paths import scratch
from orchestrator.parse.upstream import UpstreamLogParser
from orchestrator.results import Kind, Status
from orchestrator.setup.lock import write_lock_entry
from orchestrator.sim.fvp_run import setup_artifact
from orchestrator.sim.limits import RunLimits
from orchestrator.sim.plan import place, plan_placed
from orchestrator.sim.process import ProcessOutcome
from orchestrator.sim.session import launch
from orchestrator.targets import load_catalogue

TRANSCRIPT = "et-docs-v0.5.0-1.log"
NPU_AT_WORK = {10: 21.0}   # after "Starting the model execution...": the NPU prints nothing
OLD = RunLimits(simulator="fvp-corstone-320", deadline_s=60.0, idle_s=20.0,
                host_deadline_s=60.0, deadline_from="old default", idle_from="old default")


def _old_way(binary: Path, elf: Path, run_dir: Path) -> ProcessOutcome:
    target = load_catalogue().target("ethos-u85-128")
    plan = plan_placed(None, place(target, "fvp-corstone-320"), binary=binary)
    parser = UpstreamLogParser(run_dir / "etdump")
    _, outcome = launch(replace(plan, limits=OLD, environment={}), elf, run_dir,
                        consumer=parser.feed_chunk, terminal=False)
    return outcome


@pytest.mark.slow
def test_replay_block_buffered_silent_npu_passes_now_and_hung_the_old_way(tmp_path):
    work = scratch(tmp_path / "scratch").ensure()
    simulator = load_catalogue().simulators["fvp-corstone-320"]
    artifact = setup_artifact(simulator)
    binary = install_replay(work.tools / artifact, simulator.name, TRANSCRIPT, 0,
                            silences=NPU_AT_WORK)
    write_lock_entry(work, artifact, {"kind": "fvp", "usable": True,
                                      "binaries": {simulator.binary: str(binary)}, "env": {}})
    old_copy = install_replay(tmp_path / "old", simulator.name, TRANSCRIPT, 0,
                              silences=NPU_AT_WORK)
    elf = tmp_path / "arm_executor_runner"
    elf.write_bytes(b"\x7fELF" + b"\0" * 60)
    request = RunRequest(target="ethos-u85-128", app="elf", elf=str(elf))
    with ThreadPoolExecutor(max_workers=2) as pool:
        new = pool.submit(execute, request, work)
        old = pool.submit(_old_way, old_copy, elf, tmp_path / "old-run")
        result, outcome = new.result(), old.result()

    assert invocation(binary)["stdout_isatty"] is True
    assert result.status is Status.PASS and result.classification.kind is Kind.SUCCESS
    assert result.npu.cycles == 5920305
    limits = result.target.options["limits"]
    assert limits["deadline_s"] == 600.0 and limits["idle_s"] is None
    assert "simulators.fvp-corstone-320.limits.deadline_s" in limits["deadline_from"]
    assert result.simulation.exit_code == 0

    assert invocation(old_copy)["stdout_isatty"] is False
    assert outcome.stopped_by == "no_output" and outcome.exit_code is None
    assert outcome.transcript == ""   # the 4 KiB block never filled: nothing reached the host
    assert 19.0 < outcome.seconds < 30.0
