"""One simulator process: clean environment, own process group, output drained continuously
to a log file and a consumer, host deadline plus no-output watchdog, group kill on stop.

The simulator's stdout/stderr is a pseudo-terminal by default: C stdio (the FVP's included)
line-buffers a terminal but block-buffers a pipe (4 KiB), which held a run's output back
until exit and tripped the no-output watchdog. The terminal is raw (no echo, no CR/LF
translation), so the log stays byte-exact. The standard pty module suffices: the output is
one-way (a sample session's inputs reach the firmware through semihosting file reads,
firmware/PROTOCOL.md "Sample sessions"), so nothing here needs pexpect's dialogue helpers.
"""

from __future__ import annotations

import codecs
import errno
import os
import pty
import signal
import subprocess
import threading
import time
import tty
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError

KILL_GRACE_S = 2.0
READ_SIZE = 65536
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR")
# Every simulator carries the pid of the process that started it: orchestrator.sim.owners
# finds a dead owner's orphans (a worker killed mid-cell) and a cancelled job's simulators.
OWNER_ENV = "ETHOSU_ORCH_SIM_OWNER"


@dataclass(frozen=True)
class ProcessOutcome:
    """How the process ended: its exit code, or why the host stopped it."""

    pid: int
    exit_code: int | None
    stopped_by: str | None  # None (exited by itself), "deadline" or "no_output"
    seconds: float
    transcript: str
    log_path: Path


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A minimal environment: PATH/locale from the host, HOME in the run directory."""
    env = {key: os.environ[key] for key in KEEP_ENV if key in os.environ}
    env.setdefault("PATH", os.defpath)
    env["HOME"] = str(home)
    env.update(extra or {})
    return env


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole process group, then SIGKILL what is left after a grace period."""
    for sig, wait_s in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, KILL_GRACE_S)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            break
        try:
            process.wait(timeout=wait_s)
            if sig == signal.SIGTERM:
                _kill_stragglers(process.pid)
            break
        except subprocess.TimeoutExpired:
            continue


def _kill_stragglers(group: int) -> None:
    """Children that outlived the group leader still get SIGKILL."""
    try:
        os.killpg(group, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Drain(threading.Thread):
    """Reads the output descriptor until EOF: raw bytes to the log, decoded text to the
    consumer. A terminal's EOF is EIO once every writer has closed its side."""

    def __init__(self, descriptor: int, log: Path, consumer: Callable[[str], None]) -> None:
        super().__init__(daemon=True)
        self.descriptor, self.log, self.consumer = descriptor, log, consumer
        self.chunks: list[str] = []
        self.last_output = time.monotonic()
        self.finished = threading.Event()

    def run(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            with self.log.open("wb") as log:
                while data := _read(self.descriptor):
                    self.last_output = time.monotonic()
                    log.write(data)
                    log.flush()
                    self._deliver(decoder.decode(data))
                self._deliver(decoder.decode(b"", final=True))
        finally:
            self.finished.set()

    def _deliver(self, text: str) -> None:
        if not text:
            return
        self.chunks.append(text)
        try:
            self.consumer(text)
        except Exception:  # noqa: BLE001 - a consumer bug must not stop the drain
            pass


def _read(descriptor: int) -> bytes:
    """One read; b"" at EOF (a pipe's empty read, a terminal's EIO)."""
    try:
        return os.read(descriptor, READ_SIZE)
    except OSError as error:
        if error.errno == errno.EIO:
            return b""
        raise


def _spawn(command: Sequence[str], cwd: Path, env: dict[str, str],
           terminal: bool) -> tuple[subprocess.Popen[bytes], int]:
    """Start `command` in its own session; return it and the descriptor its output comes on."""
    env = {**env, OWNER_ENV: str(os.getpid())}
    if not terminal:
        process = subprocess.Popen(list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        assert process.stdout is not None
        return process, process.stdout.fileno()
    controller, device = pty.openpty()
    try:
        tty.setraw(device)   # no echo, no "\n" -> "\r\n": the log is what the program wrote
        process = subprocess.Popen(list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                   stdout=device, stderr=device, start_new_session=True)
    except BaseException:
        os.close(controller)
        raise
    finally:
        os.close(device)
    return process, controller


def _close_output(process: subprocess.Popen[bytes], descriptor: int) -> None:
    """Close the output side once the drain is done with it."""
    if process.stdout is not None:
        process.stdout.close()
    else:
        os.close(descriptor)


def _watch(drain: _Drain, started: float, deadline_s: float, idle_s: float | None) -> str | None:
    """Wait for EOF; return why the host must stop the process (None when it finished)."""
    while True:
        now = time.monotonic()
        left = started + deadline_s - now
        if left <= 0:
            return "deadline"
        idle_left = drain.last_output + idle_s - now if idle_s else left
        if idle_left <= 0:
            return "no_output"
        if drain.finished.wait(timeout=min(left, idle_left)):
            return None


def run_process(command: Sequence[str], *, cwd: Path, log_path: Path, deadline_s: float,
                idle_s: float | None = None, consumer: Callable[[str], None] = lambda _: None,
                env: dict[str, str] | None = None, terminal: bool = True) -> ProcessOutcome:
    """Run `command` to completion or until the deadline / no-output watchdog stops it
    (`idle_s` None or 0: no watchdog). Output comes through a pseudo-terminal unless
    `terminal` is False (a pipe: what C stdio block-buffers)."""
    started = time.monotonic()
    try:
        process, descriptor = _spawn(command, cwd, env or clean_env(cwd), terminal)
    except OSError as error:
        raise OrchestratorError(f"cannot start {command[0]} ({error.strerror})",
                                "invoke doctor") from None
    drain = _Drain(descriptor, log_path, consumer)
    stopped_by = None
    try:
        drain.start()
        stopped_by = _watch(drain, started, deadline_s, idle_s or None)
        if stopped_by:
            kill_group(process)
        exit_code = process.wait()
    except BaseException:
        kill_group(process)
        raise
    finally:
        _kill_stragglers(process.pid)
        if drain.ident is not None:
            drain.join(timeout=KILL_GRACE_S)
        if not drain.is_alive():
            _close_output(process, descriptor)
    return ProcessOutcome(pid=process.pid, exit_code=None if stopped_by else exit_code,
                          stopped_by=stopped_by, seconds=time.monotonic() - started,
                          transcript="".join(drain.chunks), log_path=log_path)
