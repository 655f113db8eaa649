"""A warm run's early start (orchestrator.runner.early_start) with real processes and files: a
stand-in simulator (a Python script) that prints the nonce it finds in its input area, so each
test sees which bytes the started process really loaded. The QEMU path itself: the sources
suite's test_a_warm_run_adopts_its_early_start (tests/runner/test_runner_qemu_exact.py)."""

from __future__ import annotations

import errno
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.foundation.file_faults import write_error
from orchestrator.foundation.paths import scratch
from orchestrator.foundation.run_ids import new_run_id
from orchestrator.options import RunRequest
from orchestrator.runner import early_start as early
from orchestrator.runner.areas import NONCE_OFFSET
from orchestrator.sim.launch import TRANSCRIPT, Launch
from orchestrator.sim.process import clean_env

SIMULATOR = """
import pathlib, sys, time
area = pathlib.Path(sys.argv[1]).read_bytes()
print("nonce", int.from_bytes(area[{offset}:{offset} + 4], "little"), flush=True)
time.sleep(float(sys.argv[2]))
print("done", flush=True)
"""
INPUT, MODEL = "input_area.bin", "model_area.bin"


@pytest.fixture
def work(tmp_path):
    return scratch(tmp_path / "scratch").ensure()


@pytest.fixture
def elf(tmp_path):
    path = tmp_path / "runner.elf"
    path.write_bytes(b"\x7fELF stand-in")
    return path


def request() -> RunRequest:
    """A fresh run (its own run id) of one request."""
    return replace(RunRequest(target="cortex-m55", model="convnet"),
                   run_id=new_run_id()).resolved()


def launch_for(work, run_id: str, sleep_s: float = 0.0) -> Launch:
    run_dir = work.runs / run_id
    script = SIMULATOR.format(offset=NONCE_OFFSET)
    return Launch((sys.executable, "-c", script, str(run_dir / INPUT), str(sleep_s)),
                  clean_env(run_dir), run_dir)


def areas(nonce: int) -> dict[str, bytes]:
    head = b"EORINPT1" + bytes(8) + nonce.to_bytes(4, "little")
    return {MODEL: b"model bytes", INPUT: head + b"input bytes"}


def record_first_run(work, elf, sleep_s: float = 0.0) -> None:
    """A completed run of request(): it leaves the launch record."""
    first = request()
    with early.early_start(first, work):
        started = early.claim(first.run_id)    # none the first time
        if started is not None:
            started.discard()
        early.remember(first.run_id, launch_for(work, first.run_id, sleep_s), areas(7),
                       (INPUT, NONCE_OFFSET), 60.0, elf)


def eventually(condition, timeout_s: float = 20.0) -> None:
    """Wait for `condition` (polled), failing after `timeout_s`."""
    limit = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < limit, "timed out waiting"
        time.sleep(0.02)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_the_next_run_starts_the_recorded_launch_and_adopts_it_when_it_is_the_same(work, elf):
    first = request()
    with early.early_start(first, work):
        assert early.claim(first.run_id) is None     # nothing recorded yet
    record_first_run(work, elf)
    run = request()
    with early.early_start(run, work):
        started = early.claim(run.run_id)
        assert started is not None and early.claim(run.run_id) is None   # handed over once
        on_disk = (work.runs / run.run_id / INPUT).read_bytes()
        assert on_disk == areas(started.nonce)[INPUT]          # its own nonce, in place
        process = started.adopt(launch_for(work, run.run_id), areas(started.nonce), elf, 60.0)
        assert process is not None
        outcome = process.finish(60.0)
    assert outcome.exit_code == 0 and outcome.stopped_by is None
    assert f"nonce {started.nonce}" in outcome.transcript and "done" in outcome.transcript
    assert outcome.log_path == work.runs / run.run_id / TRANSCRIPT
    assert outcome.log_path.read_text() == outcome.transcript
    assert not (work.runs / run.run_id / early.EARLY_LOG).exists()


@pytest.mark.parametrize("change", ["data", "command", "elf", "deadline"])
def test_anything_different_stops_the_early_simulator_and_removes_its_files(work, elf, change):
    record_first_run(work, elf, sleep_s=30.0)
    run = request()
    with early.early_start(run, work):
        started = early.claim(run.run_id)
        assert started is not None
        launch, data = launch_for(work, run.run_id, sleep_s=30.0), areas(started.nonce)
        deadline_s = 61.0 if change == "deadline" else 60.0
        if change == "data":
            data = {**data, MODEL: b"another model"}
        elif change == "command":
            launch = replace(launch, command=(*launch.command, "--another-flag"))
        elif change == "elf":
            time.sleep(0.01)
            elf.write_bytes(b"\x7fELF rebuilt")
        assert started.adopt(launch, data, elf, deadline_s) is None
        assert not alive(started.process.process.pid)
        assert not (work.runs / run.run_id).exists()


def test_an_early_start_the_run_never_claims_is_stopped_however_the_run_ends(work, elf):
    record_first_run(work, elf, sleep_s=30.0)
    run = request()
    with pytest.raises(RuntimeError), early.early_start(run, work):
        pid = early._pending[run.run_id].process.process.pid
        assert alive(pid)
        raise RuntimeError("the compile failed")
    assert not alive(pid)
    assert not (work.runs / run.run_id).exists()
    assert early._pending == {} and early._requests == {}


def test_a_run_that_must_compile_stops_its_early_start_at_once(work, elf):
    record_first_run(work, elf, sleep_s=30.0)
    run = request()
    with early.early_start(run, work):
        pid = early._pending[run.run_id].process.process.pid
        early.drop(run.run_id)
        assert not alive(pid) and early.claim(run.run_id) is None
        assert not (work.runs / run.run_id).exists()


def test_an_early_start_that_ended_unwatched_reports_its_own_time(work, elf):
    record_first_run(work, elf)
    run = request()
    with early.early_start(run, work):
        started = early.claim(run.run_id)
        assert started is not None
        eventually(lambda: started.process.drain.finished.is_set())   # it ends unwatched
        ended = time.monotonic()
        time.sleep(1.0)                          # while the run plans and builds
        process = started.adopt(launch_for(work, run.run_id), areas(started.nonce), elf, 60.0)
        assert process is not None
        deadline_s = ended - process.started     # passed while unwatched, not by the simulator
        outcome = process.finish(deadline_s=deadline_s)
    assert outcome.stopped_by is None and outcome.exit_code == 0
    assert outcome.seconds <= deadline_s + 0.1    # its own time, not the wait for the run


def test_a_simulator_still_running_at_its_deadline_is_stopped_while_unwatched(work, elf):
    record_first_run(work, elf, sleep_s=30.0)
    kept = early._read(work, early.request_key(request()))
    assert kept is not None
    early._write(work, early.request_key(request()), replace(kept, deadline_s=0.5))
    run = request()
    with early.early_start(run, work):
        started = early.claim(run.run_id)
        assert started is not None
        eventually(lambda: not alive(started.process.process.pid))
        process = started.adopt(launch_for(work, run.run_id, 30.0), areas(started.nonce), elf,
                                0.5)
        assert process is not None
        outcome = process.finish(deadline_s=0.5)
    assert outcome.stopped_by == "deadline" and outcome.exit_code is None


def test_no_early_start_when_switched_off_or_for_a_sample_session(work, elf, monkeypatch):
    record_first_run(work, elf)
    monkeypatch.setenv(early.SWITCH_ENV, "0")
    run = request()
    with early.early_start(run, work):
        assert early.claim(run.run_id) is None
    monkeypatch.delenv(early.SWITCH_ENV)
    with_inputs = replace(run, compile=replace(run.compile, inputs="samples/"))
    assert early.request_key(with_inputs) != early.request_key(run)
    with early.early_start(with_inputs, work):
        assert early.claim(run.run_id) is None
        early.remember(run.run_id, launch_for(work, run.run_id), areas(1), (INPUT, 16), 60.0,
                       elf)   # not recorded: a sample session never starts early
    assert early._read(work, early.request_key(with_inputs)) is None


def test_a_record_is_kept_by_request_and_rewritten_only_when_it_changes(work, elf):
    record_first_run(work, elf)
    key = early.request_key(request())
    record = work.build / early.RECORDS / f"{key}.json"
    written = record.read_bytes(), record.stat().st_ino
    record_first_run(work, elf)            # same launch, another nonce: nothing to write
    assert (record.read_bytes(), record.stat().st_ino) == written
    kept = early._read(work, key)
    assert kept is not None and kept.data[INPUT] == areas(0)[INPUT]   # kept without a nonce
    assert kept.command[3] == str(Path(early.PLACEHOLDER) / INPUT)
    record_first_run(work, elf, sleep_s=0.1)   # another command: rewritten
    assert record.read_bytes() != written[0]
    (work.build / early.RECORDS / f"{key}.{MODEL}").unlink()
    assert early._read(work, key) is None           # a record missing a file is not used


@pytest.mark.parametrize("nonce", [["model_area.bin", 64], ["no_such_file.bin", 0],
                                   ["input_area.bin", -1]])
def test_a_record_whose_nonce_has_no_place_is_not_used(work, elf, nonce):
    record_first_run(work, elf)
    key = early.request_key(request())
    path = work.build / early.RECORDS / f"{key}.json"
    kept = json.loads(path.read_text())
    path.write_text(json.dumps({**kept, "nonce": nonce}))
    assert early._read(work, key) is None
    run = request()
    with early.early_start(run, work):
        assert early.claim(run.run_id) is None


def test_only_the_newest_records_are_kept(work, elf, monkeypatch):
    monkeypatch.setattr(early, "KEPT_RECORDS", 2)
    keys = []
    for timeout in (100.0, 200.0, 100.0, 300.0):    # the first request runs again third
        run = replace(request(), timeout_s=timeout)
        keys.append(early.request_key(run))
        with early.early_start(run, work):
            started = early.claim(run.run_id)
            if started is not None:
                started.discard()
            early.remember(run.run_id, launch_for(work, run.run_id), areas(1),
                           (INPUT, NONCE_OFFSET), 60.0, elf)
        time.sleep(0.01)
    folder = work.build / early.RECORDS
    assert sorted(path.name for path in folder.iterdir()) == sorted(
        f"{key}.{suffix}" for key in (keys[0], keys[3]) for suffix in ("json", INPUT, MODEL))


@pytest.mark.parametrize("fault", ["folder", "full"])
def test_a_scratch_that_cannot_keep_records_only_loses_the_early_start(work, elf, monkeypatch,
                                                                         fault):
    if fault == "folder":
        (work.build / early.RECORDS).write_text("a file where the records folder should be")
    else:   # the atomic writers' one-line error for a full disk
        def disk_full(path, *_):
            raise write_error(path, OSError(errno.ENOSPC, "No space left on device"))

        monkeypatch.setattr(early, "write_json_atomic", disk_full)
    record_first_run(work, elf)            # neither is raised to the run
    run = request()
    with early.early_start(run, work):
        assert early.claim(run.run_id) is None
