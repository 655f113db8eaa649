"""Client progress per worker: cells done, running and failed on each, as short names
(w1, w2, ...) with a legend printed once, through the job's Progress display."""

from __future__ import annotations

import threading
from collections import Counter

from orchestrator.regress.progress import Progress


class WorkerTally:
    """Counts per worker; every finished cell's line ends with the whole tally."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.names: dict[str, str] = {}
        self.running: Counter[str] = Counter()
        self.done: Counter[str] = Counter()
        self.failed: Counter[str] = Counter()
        self.lock = threading.Lock()

    def name(self, address: str) -> str:
        """The worker's short name (assigned on first sight)."""
        with self.lock:
            return self.names.setdefault(address, f"w{len(self.names) + 1}")

    def started(self, address: str) -> None:
        self.name(address)
        with self.lock:
            self.running[address] += 1

    def finished(self, address: str, failed: bool, line: str) -> None:
        """A cell ended on `address`: count it and print its line with the tally."""
        self.name(address)
        with self.lock:
            self.running[address] = max(0, self.running[address] - 1)
            (self.failed if failed else self.done)[address] += 1
        self.progress.advance("simulate", f"{line} [{self.summary()}]")

    def lost(self, address: str) -> None:
        """A worker left: whatever it was running will run again elsewhere."""
        with self.lock:
            self.running[address] = 0

    def summary(self) -> str:
        """'w1 done 3 running 1 failed 0, w2 ...'."""
        with self.lock:
            return ", ".join(f"{name} done {self.done[address]} running "
                             f"{self.running[address]} failed {self.failed[address]}"
                             for address, name in self.names.items())

    def legend(self) -> str:
        with self.lock:
            return ", ".join(f"{name} = {address}" for address, name in self.names.items())
