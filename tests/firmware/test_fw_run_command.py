"""`invoke build` / `invoke run` end to end: tables, exit codes, scratch/runs/<id>/ files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunRequest, run_command
from orchestrator.foundation.paths import repo_root
from orchestrator.results import RunResult, Status, validation_errors

pytestmark = pytest.mark.slow


def invoke(*args: str, scratch_root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(scratch_root)}
    return subprocess.run([sys.executable, "-m", "invoke", *args], cwd=repo_root(), env=env,
                          capture_output=True, text=True, timeout=300, check=False)


def test_run_writes_a_valid_result_with_transcript(use_scratch, qemu):
    result = execute(RunRequest(target="cortex-m55", app="selftest", sim="qemu"), use_scratch)
    run_dir = use_scratch.runs / result.run_id
    document = json.loads((run_dir / "result.json").read_text())
    assert validation_errors(document) == []
    assert RunResult.from_dict(document).status is Status.PASS
    assert (run_dir / "transcript.log").read_text().count("@@EOR1 ") > 50
    assert (run_dir / "command.txt").read_text().startswith(str(qemu[1]))
    assert document["classification"]["kind"] == "success"
    assert document["cpu"]["source"] == "systick" and document["cpu"]["total"] > 0
    assert document["memory"]["pools"]["stack"]["size"] == 0x8000
    assert document["target"]["options"]["checks"]["mve_dot"] is True
    assert document["outputs"][0]["exact"] is True and len(document["outputs"]) == 17
    assert document["versions"]["simulator_version"].startswith(("7.", "8.", "9.", "10."))


def test_fault_run_returns_one_and_records_the_cause(use_scratch, qemu, capsys):
    code = run_command(RunRequest("cortex-m55", app="selftest", sim="qemu",
                                  build_options=("EOR_SELFTEST_BEHAVIOUR=fault",)))
    out = capsys.readouterr().out
    assert code == 1
    assert "error (hard_fault)" in out and "arm-none-eabi-addr2line -f -e" in out


def test_cli_build_then_run(use_scratch, qemu):
    first = invoke("build", "--target", "cortex-m55", scratch_root=use_scratch.root)
    assert first.returncode == 0, first.stderr
    again = invoke("build", "--target", "cortex-m55", scratch_root=use_scratch.root)
    assert "up to date" in again.stdout and "DTCM" in again.stdout
    ran = invoke("run", "--target", "cortex-m55", "--app", "selftest", "--sim", "qemu",
                 scratch_root=use_scratch.root)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("status") and "pass (success)" in ran.stdout


def test_cli_refuses_a_target_qemu_cannot_run_in_one_line(use_scratch):
    """Every Ethos-U family now runs on QEMU through the NPU model; the Cortex-M85
    (Corstone-320) has no QEMU machine, so it is refused before anything is compiled."""
    done = invoke("run", "--target", "cortex-m85", "--sim", "qemu",
                  scratch_root=use_scratch.root)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "qemu cannot run platform corstone-320" in done.stderr and "next:" in done.stderr


def test_selftest_refuses_a_model(use_scratch):
    with pytest.raises(Exception, match="the selftest app takes no model"):
        execute(RunRequest(target="cortex-m55", app="selftest", model="add"), use_scratch)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_interrupted_run_writes_result_json_and_stops_qemu(use_scratch, qemu, signum):
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(use_scratch.root)}
    before = set(use_scratch.runs.glob("*")) if use_scratch.runs.is_dir() else set()
    proc = subprocess.Popen(
        [sys.executable, "-m", "invoke", "run", "--target", "cortex-m55", "--app", "selftest",
         "--sim", "qemu", "--option", "EOR_SELFTEST_BEHAVIOUR=hang", "--timeout", "200",
         "--idle-timeout", "150", "--quiet"], cwd=repo_root(), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 280
    run_dir = None
    while run_dir is None:
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.2)
        fresh = [d for d in use_scratch.runs.glob("*") if d not in before]
        hanging = [d for d in fresh if "hanging on purpose" in _text(d / "transcript.log")]
        run_dir = hanging[0] if hanging else None
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and err.strip() == "interrupted"
    document = json.loads((run_dir / "result.json").read_text())
    assert validation_errors(document) == []
    assert document["status"] == "interrupted"
    assert document["classification"]["kind"] == "interrupted"
    assert document["artifacts"]["transcript"] == str(run_dir / "transcript.log")
    alive = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, check=False)
    assert alive.stdout == b""


def _text(path: Path) -> str:
    return path.read_text(errors="replace") if path.is_file() else ""
