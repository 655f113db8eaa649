"""Live progress for a regression job: a rich display on a terminal, plain lines in CI logs."""

from __future__ import annotations

import sys
import threading
from typing import Any, Protocol


class Progress(Protocol):
    """Phases (build, compile, simulate) with totals, advanced as work finishes."""

    def phase(self, name: str, total: int) -> None: ...

    def advance(self, name: str, line: str) -> None: ...

    def close(self) -> None: ...


class QuietProgress:
    """Reports nothing (tests, --quiet)."""

    def phase(self, name: str, total: int) -> None:
        """Ignore."""

    def advance(self, name: str, line: str) -> None:
        """Ignore."""

    def close(self) -> None:
        """Ignore."""


class LineProgress:
    """One line per finished item, '[3/6] simulate pass add@cortex-m55/default (1.2 s)'."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stdout
        self.totals: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.lock = threading.Lock()

    def phase(self, name: str, total: int) -> None:
        with self.lock:
            self.totals[name], self.done[name] = total, 0

    def advance(self, name: str, line: str) -> None:
        with self.lock:
            self.done[name] = self.done.get(name, 0) + 1
            print(f"[{self.done[name]}/{self.totals.get(name, '?')}] {name:8} {line}",
                  file=self.stream, flush=True)

    def close(self) -> None:
        """Nothing to tear down."""


class RichProgress:
    """A live rich display: one bar per phase, the last finished item beside it."""

    def __init__(self, console: Any = None) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as RichBars

        self.bars = RichBars(TextColumn("{task.description:9}"), BarColumn(),
                             MofNCompleteColumn(), TimeElapsedColumn(),
                             TextColumn("{task.fields[last]}"), console=console)
        self.tasks: dict[str, Any] = {}
        self.lock = threading.Lock()
        self.bars.start()

    def phase(self, name: str, total: int) -> None:
        with self.lock:
            self.tasks[name] = self.bars.add_task(name, total=total, last="")

    def advance(self, name: str, line: str) -> None:
        with self.lock:
            self.bars.update(self.tasks[name], advance=1, last=line)
            self.bars.console.print(f"  {name:8} {line}", highlight=False)

    def close(self) -> None:
        self.bars.stop()


def make_progress(quiet: bool = False) -> Progress:
    """Rich bars on a terminal, plain lines otherwise, nothing when quiet."""
    if quiet:
        return QuietProgress()
    return RichProgress() if sys.stdout.isatty() else LineProgress()
