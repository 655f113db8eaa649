"""The simulator interface: what the run path needs from a kind of simulator (its binary, its
command line, its environment, its version, why it stopped). One implementation per kind,
in the module named after it (orchestrator/sim/<kind>.py, attribute KIND); the catalogue's
`kind` picks it, and capabilities (NPU, semihosting, data loading) are catalogue data
(Simulator.capabilities). A new simulator is that one module plus its catalogue entry."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options.fvp import FvpExtras
from orchestrator.results import RunResult
from orchestrator.sim.data import DataFile
from orchestrator.sim.limits import RunLimits
from orchestrator.targets import Simulator

PMU_TRACE = "ethosu_pmu_trace.txt"   # where an FVP writes the Ethos-U PMU trace (run dir)


@dataclass(frozen=True)
class SimOptions:
    """Everything a run asks of its simulator besides the ELF and data, as one object: time
    limits (None: the catalogue's), the NPU's MACs, and the FVP extras (--fast, PMU trace)."""

    timeout_s: float | None = None
    idle_timeout_s: float | None = None
    macs: int | None = None
    fvp: FvpExtras = FvpExtras()


@dataclass(frozen=True)
class Invocation:
    """One simulator start: which simulator, binary and ELF, what to load, where, how long."""

    simulator: Simulator
    binary: Path
    elf: Path
    run_dir: Path
    limits: RunLimits
    options: SimOptions
    data: Sequence[DataFile] = ()


@runtime_checkable
class SimulatorKind(Protocol):
    """One kind of simulator (QEMU, FVP, ...)."""

    def binary(self, work: Scratch, simulator: Simulator) -> Path:
        """The executable to start, or an error naming the setup step that installs it."""

    def command(self, run: Invocation) -> list[str]:
        """The command line of one run."""

    def environment(self, binary: Path, work: Scratch | None) -> dict[str, str] | None:
        """Extra environment the binary needs (None: none)."""

    def version(self, work: Scratch | None, simulator: Simulator, binary: Path) -> str | None:
        """The version the result records (None when it is not known)."""

    def explain_stop(self, result: RunResult, transcript: str) -> RunResult:
        """`result` with a simulator-specific stop (a limit, a failed launch) named."""


def kind_of(simulator: Simulator) -> SimulatorKind:
    """The implementation of `simulator`'s kind (orchestrator.sim.<kind>.KIND)."""
    try:
        module = importlib.import_module(f"orchestrator.sim.{simulator.kind}")
    except ModuleNotFoundError:
        module = None
    kind = getattr(module, "KIND", None)
    if kind is None:
        raise OrchestratorError(f"simulator {simulator.name} is of kind {simulator.kind!r}, "
                                "which this tool has no implementation for",
                                f"add orchestrator/sim/{simulator.kind}.py with KIND, or fix "
                                "orchestrator/data/targets.toml")
    return kind  # type: ignore[no-any-return]
