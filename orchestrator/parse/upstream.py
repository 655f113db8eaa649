"""UpstreamLogParser: feeds each console line to every consumer; works on files and live streams."""

from __future__ import annotations

import codecs
from collections.abc import Iterable
from pathlib import Path

from orchestrator.parse.bundleio import BundleIO
from orchestrator.parse.consumer import Consumer
from orchestrator.parse.delegation import DelegationSummary
from orchestrator.parse.etdump import EtdumpBlocks
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.faults import FaultLines
from orchestrator.parse.lines import split_line
from orchestrator.parse.memory import AllocatorStats, ImageSections
from orchestrator.parse.outputs import OutputLines
from orchestrator.parse.platform import PlatformLines, zephyr_log_line
from orchestrator.parse.pmu import PerfMonitor
from orchestrator.parse.protocol_log import ProtocolLines
from orchestrator.parse.runner import RunnerLifecycle, RunnerParameters, RunnerPlainLines
from orchestrator.parse.simulator import SimulatorLines
from orchestrator.parse.unity import UnityLines
from orchestrator.parse.vela import VelaOperatorTable, VelaSummary
from orchestrator.parse.wrapper import WrapperLines

MAX_PENDING = 64 * 1024 * 1024  # a stream without newlines is cut here (ETDump lines are MBs)


def default_consumers(etdump_dir: Path | None = None) -> list[Consumer]:
    """One consumer per concern; the first that recognises a line takes it."""
    return [
        ProtocolLines(),
        EtdumpBlocks(etdump_dir),
        FaultLines(),
        RunnerLifecycle(),
        RunnerParameters(),
        RunnerPlainLines(),
        UnityLines(),
        OutputLines(),
        PerfMonitor(),
        AllocatorStats(),
        BundleIO(),
        SimulatorLines(),
        PlatformLines(),
        WrapperLines(),
        ImageSections(),
        VelaOperatorTable(),
        VelaSummary(),
        DelegationSummary(),
    ]


class UpstreamLogParser:
    """Parses arm_executor_runner / run_fvp.sh / FVP / Zephyr / Vela output line by line.

    Each line goes to the consumers in order until one recognises it; lines nobody
    recognises are kept (bounded) as unknown. Nothing here raises on odd input.
    """

    def __init__(
        self, etdump_dir: Path | None = None, consumers: list[Consumer] | None = None
    ) -> None:
        self.facts = LogFacts()
        self.consumers = consumers if consumers is not None else default_consumers(etdump_dir)
        self._pending = ""
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, raw: str) -> None:
        """Consume one line (with or without its newline); never raises on odd input."""
        self.facts.log.lines += 1
        line = split_line(self.facts.log.lines, raw)
        if line.format and line.format not in self.facts.log.formats:
            self.facts.log.formats.append(line.format)
        if line.is_et:
            self.facts.mark("runner", line.number)
        zephyr_log_line(line, self.facts)
        if not any(consumer.feed(line, self.facts) for consumer in self.consumers):
            if line.text.strip():
                self.facts.unknown_line(line.text)

    def feed_lines(self, lines: Iterable[str]) -> LogFacts:
        """Consume many lines; return the facts so far."""
        for raw in lines:
            self.feed(raw)
        return self.facts

    def feed_chunk(self, chunk: str | bytes) -> None:
        """Consume a chunk of a live stream; a trailing partial line waits for the next chunk."""
        if isinstance(chunk, bytes):
            chunk = self._decoder.decode(chunk)
        parts = (self._pending + chunk).split("\n")
        self._pending = parts.pop()
        if len(self._pending) > MAX_PENDING:
            parts.append(self._pending)
            self._pending = ""
        for part in parts:
            self.feed(part)

    def finish(self) -> LogFacts:
        """Flush a trailing partial line, let consumers conclude, and return the facts."""
        self._pending += self._decoder.decode(b"", final=True)
        if self._pending:
            self.feed(self._pending)
            self._pending = ""
        for consumer in self.consumers:
            conclude = getattr(consumer, "finish", None)
            if conclude is not None:
                conclude(self.facts)
        return self.facts


def parse_text(text: str, etdump_dir: Path | None = None) -> LogFacts:
    """Facts of a whole log given as text."""
    parser = UpstreamLogParser(etdump_dir)
    parser.feed_chunk(text)
    return parser.finish()


def parse_file(path: Path, etdump_dir: Path | None = None) -> LogFacts:
    """Facts of a log file (read as UTF-8, undecodable bytes replaced)."""
    return parse_text(path.read_bytes().decode("utf-8", errors="replace"), etdump_dir)
