"""Everything the line consumers learn from a log, gathered in one mutable record."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestrator.results.model import (
    FVP_CPU_CYCLES_NOTE,
    Comparison,
    CpuCycles,
    Delegation,
    Kind,
    LogInfo,
    MemoryUse,
    NpuPmu,
    OutputTensor,
    PoolUse,
    Simulation,
    TargetInfo,
    VelaEstimate,
    Versions,
)

MAX_KEPT_LINES = 200
MAX_KEPT_CHARS = 500
# Positive evidence that the firmware finished; nothing else makes a log a pass.
COMPLETION_MARKERS = ("complete", "app_exit", "bundle_pass", "eot", "tests_passed")
# Evidence that firmware printed something (as opposed to a simulator, wrapper or report).
FIRMWARE_MARKERS = ("runner", "outputs", "firmware", "protocol")


def shorten(text: str) -> str:
    """A kept line, cut to MAX_KEPT_CHARS (base64 blobs can be megabytes long)."""
    return text if len(text) <= MAX_KEPT_CHARS else text[:MAX_KEPT_CHARS] + "…"


@dataclass
class Problem:
    """A failure seen in the log, with the line that shows it and its details."""

    kind: Kind
    summary: str
    line: str
    number: int
    details: dict[str, Any] = field(default_factory=dict)
    next_step: str | None = None
    # Said by a launcher, simulator start-up or build line: "the firmware never ran". Firmware
    # output anywhere in the log overrules it (see LogFacts.firmware_printed).
    pre_run: bool = False


@dataclass
class LogFacts:
    """Facts gathered from a log so far (the live state of a stream)."""

    markers: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    outputs: list[OutputTensor] = field(default_factory=list)
    expected_outputs: int | None = None
    npu: NpuPmu | None = None
    cpu: CpuCycles | None = None
    memory: MemoryUse | None = None
    vela: VelaEstimate | None = None
    delegation: Delegation | None = None
    comparison: Comparison | None = None
    simulation: Simulation = field(default_factory=Simulation)
    versions: Versions = field(default_factory=Versions)
    target: TargetInfo = field(default_factory=TargetInfo)
    artifacts: dict[str, str] = field(default_factory=dict)
    runner: dict[str, Any] = field(default_factory=dict)
    log: LogInfo = field(default_factory=LogInfo)

    def mark(self, name: str, number: int) -> None:
        """Record that `name` happened, keeping the first line number it happened at."""
        self.markers.setdefault(name, number)

    def problem(self, kind: Kind, summary: str, line: Any, **details: Any) -> Problem:
        """Record a failure seen on `line` (a LogLine)."""
        found = Problem(kind, summary, shorten(line.text), line.number, details)
        self.problems.append(found)
        return found

    def pre_run_problem(self, kind: Kind, summary: str, line: Any, **details: Any) -> Problem:
        """Record a launcher, simulator start-up or build line meaning the firmware never ran
        (firmware output anywhere in the log overrules it)."""
        found = self.problem(kind, summary, line, **details)
        found.pre_run = True
        return found

    def add_problem(self, kind: Kind, summary: str, evidence: str, **details: Any) -> Problem:
        """Record a failure learnt elsewhere (protocol record, exit code) at the current line."""
        found = Problem(kind, summary, shorten(evidence), self.log.lines, details)
        self.problems.append(found)
        return found

    def mark_complete(self) -> None:
        """Record that the runner finished (e.g. our protocol's end record said so)."""
        self.mark("complete", self.log.lines)

    def error_line(self, text: str) -> None:
        """Keep an error-looking line (bounded)."""
        if len(self.log.errors) < MAX_KEPT_LINES:
            self.log.errors.append(shorten(text))

    def unknown_line(self, text: str) -> None:
        """Count and keep (bounded) a line no consumer recognised."""
        self.log.unknown_count += 1
        if len(self.log.unknown) < MAX_KEPT_LINES:
            self.log.unknown.append(shorten(text))

    def memory_use(self) -> MemoryUse:
        """The memory record, created on first use."""
        if self.memory is None:
            self.memory = MemoryUse()
        return self.memory

    def pool(self, name: str) -> PoolUse:
        """The named allocator pool record, created on first use."""
        return self.memory_use().pools.setdefault(name, PoolUse())

    def npu_pmu(self) -> NpuPmu:
        """The NPU PMU record, created on first use."""
        if self.npu is None:
            self.npu = NpuPmu()
        return self.npu

    def cpu_cycles(self) -> CpuCycles:
        """The CPU cycle record (arm_perf_monitor, Cortex-M PMU CCNTR), created on first use."""
        if self.cpu is None:
            self.cpu = CpuCycles(
                source="arm_perf_monitor CPU PMU (CCNTR)", note=FVP_CPU_CYCLES_NOTE
            )
        return self.cpu

    def vela_estimate(self) -> VelaEstimate:
        """The Vela estimate record, created on first use."""
        if self.vela is None:
            self.vela = VelaEstimate()
        return self.vela

    def delegation_summary(self) -> Delegation:
        """The delegation summary record, created on first use."""
        if self.delegation is None:
            self.delegation = Delegation()
        return self.delegation

    def firmware_printed(self) -> bool:
        """True once the firmware printed anything: a runner, Zephyr, driver or protocol line,
        an output, a completion marker or a failure only firmware reports (a fault, an
        allocation failure, ...). Then the simulator did start, whatever a launcher said."""
        if any(name in self.markers for name in FIRMWARE_MARKERS + COMPLETION_MARKERS):
            return True
        return bool(self.outputs) or any(not problem.pre_run for problem in self.problems)

    def first(self, *names: str) -> int | None:
        """The earliest line number among the given markers (None if none happened)."""
        seen = [self.markers[name] for name in names if name in self.markers]
        return min(seen) if seen else None
