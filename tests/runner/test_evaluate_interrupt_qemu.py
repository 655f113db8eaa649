"""Ctrl-C during `invoke evaluate` keeps what the device finished: a real SIGINT to a real
`invoke evaluate` process while its QEMU session runs (digits CNN on the functional
Ethos-U85 model, 200 input sets) exits 130, leaves no QEMU, and the run directory holds
evaluation.json with every sample the transcript closed (each scored against its exact
reference) and result.json saying the session was interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.foundation.paths import Scratch, repo_root
from orchestrator.protocol.stream import parse_text
from orchestrator.results import validation_errors
from orchestrator.setup.lock import write_lock_entry

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]

pytest.importorskip("sklearn", reason="scikit-learn is in the test extra: pip install -e "
                                      "'.[test]'")

MODEL = repo_root() / "examples" / "digits" / "digits_cnn.py"
SAMPLES = 200            # about 10 s of session on QEMU: time to interrupt it half way
INTERRUPT_AFTER = 3      # samples the device closed before Ctrl-C


def finished_samples(run_dir: Path) -> int:
    transcript = run_dir / "transcript.log"
    return len(parse_text(transcript.read_text(errors="replace")).samples) \
        if transcript.is_file() else 0


def session_under_way(work: Scratch, before: set[Path], proc: subprocess.Popen[str]) -> Path:
    """The new run directory once its session has closed INTERRUPT_AFTER samples."""
    deadline = time.monotonic() + 1800   # a cold scratch compiles and builds first
    while True:
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "the session never started"
        fresh = [d for d in work.runs.glob("*") if d not in before] if work.runs.is_dir() else []
        ready = [d for d in fresh if finished_samples(d) >= INTERRUPT_AFTER]
        if ready:
            return ready[0]
        time.sleep(0.1)


def test_ctrl_c_records_the_samples_the_session_finished(runner_scratch: Scratch,
                                                         runtime_sources: dict[str, Path],
                                                         tmp_path: Path) -> None:
    for name in ("executorch", "cmsis-nn"):   # as setup records them
        write_lock_entry(runner_scratch, name, {"kind": "source",
                                                "path": str(runtime_sources[name])})
    data = tmp_path / "digits"
    subprocess.run([sys.executable, str(MODEL), str(data), str(SAMPLES)], check=True,
                   capture_output=True, timeout=300)
    before = set(runner_scratch.runs.glob("*")) if runner_scratch.runs.is_dir() else set()
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(runner_scratch.root)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "invoke", "evaluate", "--model", str(MODEL), "--target",
         "ethos-u85-128", "--sim", "qemu", "--data", str(data), "--quiet"],
        cwd=repo_root(), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        run_dir = session_under_way(runner_scratch, before, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and err.strip().splitlines()[-1] == "interrupted", err
    alive = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, check=False)
    assert alive.stdout == b"", "QEMU outlived the interrupted session"

    closed = finished_samples(run_dir)
    assert INTERRUPT_AFTER <= closed < SAMPLES
    document = json.loads((run_dir / "evaluation.json").read_text())
    assert not document["passed"]
    assert document["stopped"]["status"] == "interrupted"
    assert document["stopped"]["completed"] == closed == document["summary"]["completed"]
    assert [s["index"] for s in document["samples"]] == list(range(closed))
    assert all(s["exact"] for s in document["samples"])
    assert (run_dir / "evaluation.html").is_file()
    result = json.loads((run_dir / "result.json").read_text())
    assert result["status"] == "interrupted" and validation_errors(result) == []
    assert result == document["session"] | {"artifacts": result["artifacts"]}
