"""One simulator process: clean environment, own process group, output drained continuously
to a log file and a consumer, host deadline plus no-output watchdog, group kill on stop."""

from __future__ import annotations

import codecs
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from orchestrator.errors import OrchestratorError

KILL_GRACE_S = 2.0
READ_SIZE = 65536
KEEP_ENV = ("PATH", "LANG", "LC_ALL", "TMPDIR")


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
    """Reads the pipe until EOF: raw bytes to the log, decoded text to the consumer."""

    def __init__(self, process: subprocess.Popen[bytes], log: Path,
                 consumer: Callable[[str], None]) -> None:
        super().__init__(daemon=True)
        self.process, self.log, self.consumer = process, log, consumer
        self.chunks: list[str] = []
        self.last_output = time.monotonic()
        self.finished = threading.Event()

    def run(self) -> None:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        assert self.process.stdout is not None
        descriptor = self.process.stdout.fileno()
        try:
            with self.log.open("wb") as log:
                while True:
                    data = os.read(descriptor, READ_SIZE)
                    if not data:
                        break
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
                env: dict[str, str] | None = None) -> ProcessOutcome:
    """Run `command` to completion or until the deadline / no-output watchdog stops it."""
    started = time.monotonic()
    try:
        process = subprocess.Popen(list(command), cwd=cwd, env=env or clean_env(cwd),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as error:
        raise OrchestratorError(f"cannot start {command[0]} ({error.strerror})",
                                "invoke doctor") from None
    drain = _Drain(process, log_path, consumer)
    stopped_by = None
    try:
        drain.start()
        stopped_by = _watch(drain, started, deadline_s, idle_s)
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
        if process.stdout is not None and not drain.is_alive():
            process.stdout.close()
    return ProcessOutcome(pid=process.pid, exit_code=None if stopped_by else exit_code,
                          stopped_by=stopped_by, seconds=time.monotonic() - started,
                          transcript="".join(drain.chunks), log_path=log_path)
