"""Progress of long steps (downloads, source export, configure, runtime build, compile,
simulation) on stderr: a live rich bar on a terminal; otherwise one line when a step starts
and ends and, for builds, a `[n/N]` line at most every 10 s, so a CI log shows where the time
goes. `--quiet` (or ETHOSU_ORCH_QUIET=1) silences it. stdout stays for results and JSON."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TextIO

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing

QUIET_ENV = "ETHOSU_ORCH_QUIET"
LINE_INTERVAL_S = 10.0
NINJA_STEP = re.compile(r"^\[(\d+)/(\d+)\]")
NINJA_NO_WORK = "ninja: no work to do."
PREFIX = "eor:"


class Reporter(Protocol):
    """Where step progress goes."""

    def begin(self, step: str) -> None: ...

    def update(self, step: str, done: int, total: int) -> None: ...

    def end(self, step: str, seconds: float, ok: bool) -> None: ...


class QuietReporter:
    """Reports nothing."""

    def begin(self, step: str) -> None:
        """Ignore."""

    def update(self, step: str, done: int, total: int) -> None:
        """Ignore."""

    def end(self, step: str, seconds: float, ok: bool) -> None:
        """Ignore."""


class LineReporter:
    """Plain lines for logs: start, `[n/N]` at most every `interval` seconds, end."""

    def __init__(self, stream: TextIO | None = None, interval: float = LINE_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.stream = stream
        self.interval = interval
        self.clock = clock
        self.last: dict[str, float] = {}

    def _print(self, text: str) -> None:
        print(f"{PREFIX} {text}", file=self.stream or sys.stderr, flush=True)

    def begin(self, step: str) -> None:
        self.last[step] = self.clock()
        self._print(f"{step} ...")

    def update(self, step: str, done: int, total: int) -> None:
        now = self.clock()
        if now - self.last.get(step, now) >= self.interval:
            self.last[step] = now
            self._print(f"{step} [{done}/{total}]")

    def end(self, step: str, seconds: float, ok: bool) -> None:
        self.last.pop(step, None)
        self._print(f"{step} {'done' if ok else 'FAILED'} in {seconds:.1f} s")


class LiveReporter:
    """A rich bar per running step (a spinner until a build reports its total)."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            SpinnerColumn,
            TextColumn,
            TimeElapsedColumn,
        )

        self.bars = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(),
                             console=Console(stderr=True))
        self.tasks: dict[str, Any] = {}
        self.lock = threading.Lock()

    def begin(self, step: str) -> None:
        with self.lock:
            if not self.tasks:
                self.bars.start()
            self.tasks[step] = self.bars.add_task(step, total=None)

    def update(self, step: str, done: int, total: int) -> None:
        with self.lock:
            if step in self.tasks:
                self.bars.update(self.tasks[step], completed=done, total=total)

    def end(self, step: str, seconds: float, ok: bool) -> None:
        with self.lock:
            task = self.tasks.pop(step, None)
            if task is not None:
                self.bars.remove_task(task)
            self.bars.console.print(f"{PREFIX} {step} {'done' if ok else 'FAILED'} "
                                    f"in {seconds:.1f} s", highlight=False)
            if not self.tasks:
                self.bars.stop()


_state: dict[str, Reporter] = {}


def default_reporter() -> Reporter:
    """Quiet when asked, a live bar on a terminal, lines otherwise."""
    if os.environ.get(QUIET_ENV, "") not in ("", "0"):
        return QuietReporter()
    return LiveReporter() if sys.stderr.isatty() else LineReporter()


_thread = threading.local()   # a thread's own reporter (in_this_thread), over the process's


def reporter() -> Reporter:
    """The reporter in use: this thread's own, else the process's (created on first use)."""
    own: Reporter | None = getattr(_thread, "reporter", None)
    if own is not None:
        return own
    if "current" not in _state:
        _state["current"] = default_reporter()
    return _state["current"]


@contextmanager
def using(chosen: Reporter) -> Iterator[Reporter]:
    """Report through `chosen` inside the block (tests, --quiet)."""
    before = _state.get("current")
    _state["current"] = chosen
    try:
        yield chosen
    finally:
        if before is None:
            _state.pop("current", None)
        else:
            _state["current"] = before


@contextmanager
def in_this_thread(chosen: Reporter) -> Iterator[Reporter]:
    """Report through `chosen` in the calling thread only, inside the block."""
    before = getattr(_thread, "reporter", None)
    _thread.reporter = chosen
    try:
        yield chosen
    finally:
        _thread.reporter = before


def detached_reporter() -> Reporter:
    """For a thread that reports while the main thread's step captures stderr into a log (a
    compile does): silent when the process is, else plain lines to the stderr of now."""
    current = reporter()
    return current if isinstance(current, QuietReporter) else LineReporter(sys.stderr)


def quiet_if(quiet: bool) -> Reporter:
    """The reporter for a CLI command: silent with --quiet (or --json), else the default."""
    chosen: Reporter = QuietReporter() if quiet else default_reporter()
    _state["current"] = chosen
    return chosen


class Step:
    """A running step: update(done, total) as work finishes; fail() marks it failed."""

    def __init__(self, name: str, current: Reporter) -> None:
        self.name, self.current, self.ok = name, current, True

    def update(self, done: int, total: int) -> None:
        self.current.update(self.name, done, total)

    def fail(self) -> None:
        self.ok = False


@contextmanager
def step(name: str, started: float | None = None) -> Iterator[Step]:
    """Report a step's start and its end (failed when the block raised or called fail());
    `started`: when the step's work began (time.monotonic), if before the block."""
    current = reporter()
    started = time.monotonic() if started is None else started
    current.begin(name)
    handle = Step(name, current)
    raised = True
    try:
        yield handle
        raised = False
    finally:
        current.end(name, time.monotonic() - started, handle.ok and not raised)


@dataclass(frozen=True)
class CommandRun:
    """A finished build command: exit code and everything it printed."""

    returncode: int
    output: str

    @property
    def changed_nothing(self) -> bool:
        """True when the command was ninja and it found nothing to rebuild."""
        return NINJA_NO_WORK in self.output


def stream_command(args: list[str], log: Path, what: str,
                   env: Mapping[str, str] | None = None) -> CommandRun:
    """Run `args` as step `what`: output into `log` (first line: the command), ninja's
    `[n/N]` lines reported as progress."""
    lines: list[str] = []
    with writing(log):
        opened = log.open("w")   # a read-only or full scratch: one line naming the log
    with step(what) as running, opened as handle:
        handle.write(" ".join(args) + "\n")
        with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, errors="replace",
                              env=dict(env) if env is not None else None) as process:
            assert process.stdout is not None
            for line in process.stdout:
                handle.write(line)
                lines.append(line)
                match = NINJA_STEP.match(line)
                if match:
                    running.update(int(match.group(1)), int(match.group(2)))
        if process.returncode != 0:
            running.fail()
    return CommandRun(process.returncode, "".join(lines))


def run_step(args: list[str], log: Path, what: str,
             env: Mapping[str, str] | None = None) -> CommandRun:
    """stream_command; a failure is one sentence naming the first error line and the log."""
    done = stream_command(args, log, what, env)
    if done.returncode != 0:
        raise OrchestratorError(f"could not {what}: {first_error(done.output)} "
                                f"(full log: {log})", f"fix the cause, then re-run; see {log}")
    return done


def first_error(output: str) -> str:
    """The first line of build output that looks like an error (or the last line)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower() and "-Werror" not in line and "Wno-error" not in line:
            return line[:300]
    return lines[-1][:300] if lines else "no output"
