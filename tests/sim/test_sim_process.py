"""The process abstraction on real processes: drain, watchdog, deadline, group kill, Ctrl-C."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.sim.process import clean_env, run_process

PY = sys.executable


def alive(pid: int) -> bool:
    """True while `pid` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def gone(pid: int, within_s: float = 5.0) -> bool:
    """True once `pid` has died (a SIGKILLed grandchild may take a moment under load)."""
    deadline = time.monotonic() + within_s
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_output_is_drained_to_log_and_consumer(tmp_path):
    seen: list[str] = []
    script = "import sys\nfor i in range(2000): print('line', i)\nsys.exit(3)"
    outcome = run_process([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                          deadline_s=30, idle_s=10, consumer=seen.append)
    assert outcome.exit_code == 3 and outcome.stopped_by is None
    assert "".join(seen) == outcome.transcript == (tmp_path / "log").read_text()
    assert outcome.transcript.count("\n") == 2000


def test_consumer_errors_do_not_stop_the_drain(tmp_path):
    def explode(_: str) -> None:
        raise ValueError("consumer bug")

    outcome = run_process([PY, "-c", "print('a'); print('b')"], cwd=tmp_path,
                          log_path=tmp_path / "log", deadline_s=30, consumer=explode)
    assert outcome.exit_code == 0 and "b" in outcome.transcript


def test_no_output_watchdog_kills_the_whole_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = (f"import subprocess, time\n"
              f"child = subprocess.Popen(['sleep', '300'])\n"
              f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
              f"print('started', flush=True)\ntime.sleep(300)\n")
    outcome = run_process([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                          deadline_s=60, idle_s=1.0)
    assert outcome.stopped_by == "no_output" and outcome.exit_code is None
    assert outcome.seconds < 10 and "started" in outcome.transcript
    assert gone(outcome.pid) and gone(int(pid_file.read_text()))


def test_deadline_stops_a_chatty_process(tmp_path):
    script = "import time\nwhile True:\n    print('tick', flush=True)\n    time.sleep(0.05)\n"
    outcome = run_process([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                          deadline_s=1.0, idle_s=5.0)
    assert outcome.stopped_by == "deadline" and gone(outcome.pid)
    assert outcome.transcript.count("tick") > 3


def test_sigterm_ignoring_process_is_killed(tmp_path):
    script = ("import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
              "print('stubborn', flush=True)\ntime.sleep(300)\n")
    outcome = run_process([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                          deadline_s=1.0)
    assert outcome.stopped_by == "deadline" and gone(outcome.pid)


def _interrupt_when(path: Path) -> threading.Thread:
    """SIGINT this process once the child has written `path` (it is up and running)."""
    def wait_then_interrupt() -> None:
        deadline = time.monotonic() + 60
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    thread = threading.Thread(target=wait_then_interrupt, daemon=True)
    thread.start()
    return thread


def test_ctrl_c_kills_the_group_and_propagates(tmp_path):
    pid_file = tmp_path / "pid"
    script = (f"import os, time\nprint('up', flush=True)\n"
              f"open('pid.tmp', 'w').write(str(os.getpid()))\n"
              f"os.replace('pid.tmp', {str(pid_file)!r})\ntime.sleep(300)\n")
    _interrupt_when(pid_file)
    with pytest.raises(KeyboardInterrupt):
        run_process([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                    deadline_s=60)
    assert gone(int(pid_file.read_text()))


def test_environment_is_clean(tmp_path, monkeypatch):
    monkeypatch.setenv("SECRET_TOKEN", "x")
    env = clean_env(tmp_path, {"EXTRA": "1"})
    assert "SECRET_TOKEN" not in env and env["HOME"] == str(tmp_path) and env["EXTRA"] == "1"
    outcome = run_process([PY, "-c", "import os; print(sorted(os.environ))"], cwd=tmp_path,
                          log_path=tmp_path / "log", deadline_s=30, env=env)
    assert "SECRET_TOKEN" not in outcome.transcript and "EXTRA" in outcome.transcript


def test_missing_binary_is_a_one_line_error(tmp_path):
    with pytest.raises(OrchestratorError, match="cannot start /nonexistent/qemu"):
        run_process(["/nonexistent/qemu"], cwd=tmp_path, log_path=tmp_path / "log",
                    deadline_s=5)


def test_output_is_a_raw_terminal_and_the_log_is_byte_exact(tmp_path):
    # A terminal makes C stdio line-buffer; raw mode keeps "\n", "\r\n" and invalid UTF-8
    # exactly as written (no echo, no CR/LF translation).
    payload = b"a\nb\r\nc\x00\xff\xfe tail"
    script = ("import os, sys\n"
              "os.write(1, b'tty=%d\\n' % sys.stdout.isatty())\n"
              f"os.write(1, {payload!r})\n")
    outcome = run_process([PY, "-c", script], cwd=tmp_path, log_path=tmp_path / "log",
                          deadline_s=30)
    assert (tmp_path / "log").read_bytes() == b"tty=1\n" + payload
    assert outcome.exit_code == 0


def test_pipe_mode_is_still_available(tmp_path):
    outcome = run_process([PY, "-c", "import sys; print(sys.stdout.isatty())"], cwd=tmp_path,
                          log_path=tmp_path / "log", deadline_s=30, terminal=False)
    assert outcome.transcript == "False\n"
