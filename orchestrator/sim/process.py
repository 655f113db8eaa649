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
from typing import BinaryIO

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

    def __init__(self, descriptor: int, log: BinaryIO, consumer: Callable[[str], None]) -> None:
        super().__init__(daemon=True)
        self.descriptor, self.log, self.consumer = descriptor, log, consumer
        self.chunks: list[str] = []
        self.last_output = self.ended = time.monotonic()
        self.finished = threading.Event()
        self.delivering = threading.Lock()

    def run(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        try:
            with self.log as log:
                while data := _read(self.descriptor):
                    self.last_output = time.monotonic()
                    log.write(data)
                    log.flush()
                    self._deliver(decoder.decode(data))
                self._deliver(decoder.decode(b"", final=True))
        finally:
            self.ended = time.monotonic()
            self.finished.set()

    def _deliver(self, text: str) -> None:
        if not text:
            return
        with self.delivering:
            self.chunks.append(text)
            _feed(self.consumer, text)

    def attach(self, consumer: Callable[[str], None]) -> None:
        """Hand every later chunk to `consumer`, after the chunks that came before it."""
        with self.delivering:
            for text in self.chunks:
                _feed(consumer, text)
            self.consumer = consumer


def _feed(consumer: Callable[[str], None], text: str) -> None:
    try:
        consumer(text)
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
    while not drain.finished.is_set():
        now = time.monotonic()
        left = started + deadline_s - now
        if left <= 0:
            return "deadline"
        idle_left = drain.last_output + idle_s - now if idle_s else left
        if idle_left <= 0:
            return "no_output"
        drain.finished.wait(timeout=min(left, idle_left))
    return None


class RunningProcess:
    """A started simulator: its output drained to the log (and a consumer) from the start;
    `finish` watches it to its end, `stop` ends it early (the whole group, the drain
    joined, so no process and no writer outlives it)."""

    def __init__(self, command: Sequence[str], *, cwd: Path, log_path: Path,
                 env: dict[str, str] | None = None, terminal: bool = True,
                 consumer: Callable[[str], None] = lambda _: None) -> None:
        self.command, self.log_path = list(command), log_path
        log = log_path.open("wb")
        self.started = time.monotonic()
        try:
            self.process, self.descriptor = _spawn(command, cwd, env or clean_env(cwd),
                                                   terminal)
        except OSError as error:
            log.close()
            raise OrchestratorError(f"cannot start {command[0]} ({error.strerror})",
                                    "invoke doctor") from None
        self.drain = _Drain(self.descriptor, log, consumer)
        self.closed = False
        self.guard: threading.Timer | None = None
        self.stopped_by: str | None = None
        try:
            self.drain.start()
        except BaseException:
            self.stop()
            raise

    def attach(self, consumer: Callable[[str], None]) -> None:
        """Give the output so far, then all later output, to `consumer`."""
        self.drain.attach(consumer)

    def move_log(self, path: Path) -> None:
        """Rename the log (the drain goes on writing to it under the new name)."""
        os.replace(self.log_path, path)
        self.log_path = path

    def stop_at(self, deadline_s: float) -> None:
        """Until `finish` watches it, end the process group at the host deadline (counted
        from its start) even if nothing is waiting for it."""
        left = max(0.0, self.started + deadline_s - time.monotonic())
        self.guard = threading.Timer(left, self._stop_at_deadline)
        self.guard.daemon = True
        self.guard.start()

    def finish(self, deadline_s: float, idle_s: float | None = None) -> ProcessOutcome:
        """Wait for the end, or stop the process at the deadline (counted from its start)
        or after `idle_s` without output (None or 0: no watchdog)."""
        if self.guard is not None:   # watched from here on
            self.guard.cancel()
        ended_before = self.drain.finished.is_set()   # an early start can end unwatched
        try:
            self.stopped_by = self.stopped_by or _watch(self.drain, self.started, deadline_s,
                                                        idle_s or None)
            if self.stopped_by:
                kill_group(self.process)
            exit_code = self.process.wait()
        finally:
            self.stop()
        ended = self.drain.ended if ended_before else time.monotonic()
        return ProcessOutcome(pid=self.process.pid,
                              exit_code=None if self.stopped_by else exit_code,
                              stopped_by=self.stopped_by, seconds=ended - self.started,
                              transcript="".join(self.drain.chunks), log_path=self.log_path)

    def _stop_at_deadline(self) -> None:
        self.stopped_by = "deadline"
        kill_group(self.process)

    def stop(self) -> None:
        """End the process group now (a finished one: nothing to end) and close the output."""
        if self.closed:
            return
        if self.guard is not None:
            self.guard.cancel()
        if self.process.poll() is None:
            kill_group(self.process)
        _kill_stragglers(self.process.pid)
        if self.drain.ident is not None:
            self.drain.join(timeout=KILL_GRACE_S)
        if not self.drain.is_alive():
            _close_output(self.process, self.descriptor)
        self.closed = True


def run_process(command: Sequence[str], *, cwd: Path, log_path: Path, deadline_s: float,
                idle_s: float | None = None, consumer: Callable[[str], None] = lambda _: None,
                env: dict[str, str] | None = None, terminal: bool = True) -> ProcessOutcome:
    """Run `command` to completion or until the deadline / no-output watchdog stops it
    (`idle_s` None or 0: no watchdog). Output comes through a pseudo-terminal unless
    `terminal` is False (a pipe: what C stdio block-buffers)."""
    running = RunningProcess(command, cwd=cwd, log_path=log_path, env=env, terminal=terminal,
                             consumer=consumer)
    return running.finish(deadline_s, idle_s)
