"""The narrow interface the regression engine drives: build, batch compile, run one cell.

The engine knows nothing about CMake, executorch or simulators; it calls these. The real
implementation (orchestrator.regress.lanes.real_stages) adapts the build, compile and run stages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from orchestrator.foundation.paths import Scratch
from orchestrator.regress.plan.cells import Cell
from orchestrator.results import MemoryUse, RunResult, VelaEstimate, Versions


@dataclass(frozen=True)
class CompileJob:
    """One (model, target, options) a regression run compiles; equal jobs are compiled once
    (each becomes the compile stage's own orchestrator.aot.key.CompileRequest)."""

    model: str
    model_spec: str
    target: str
    options: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, cell: Cell) -> CompileJob:
        return cls(cell.model, cell.model_spec, cell.target, cell.options)

    def report_order(self) -> tuple[str, str, str]:
        """Where the job stands in a report: by model, target, options (not by when it ran:
        a configuration runs after its family's lowering, locally and on a cluster alike)."""
        return self.model, self.target, str(self.options)


@dataclass
class CompileOutcome:
    """A compiled model (or why it failed) as the compile stage reported it."""

    ok: bool
    reason: str = ""
    product: Any = None
    vela: VelaEstimate | None = None
    memory: MemoryUse | None = None
    versions: Versions | None = None
    cached: bool = False
    log: str | None = None
    seconds: float = 0.0
    artifacts: dict[str, str] = field(default_factory=dict)
    lowering: Path | None = None   # the lowering the product configures (shipped with it)


@dataclass(frozen=True)
class FirmwareConfig:
    """One distinct firmware configuration; cells with equal configs share one build."""

    key: str
    target: str
    app: str
    detail: tuple[tuple[str, Any], ...] = ()


@dataclass
class FirmwareOutcome:
    """A built firmware image (or why the build failed)."""

    config: FirmwareConfig
    ok: bool
    reason: str = ""
    product: Any = None
    cached: bool = False
    log: str | None = None
    seconds: float = 0.0


class Stages(Protocol):
    """What the engine needs from the rest of the tool."""

    def unavailable(self, cell: Cell) -> str | None:
        """Why this cell cannot run on this machine (e.g. its FVP is not installed), or None."""

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        """The firmware configuration a simulating cell runs."""

    def build_firmware(self, config: FirmwareConfig) -> FirmwareOutcome:
        """Configure and build one firmware configuration (incremental)."""

    def compile_batch(self, requests: list[CompileJob], log_dir: Path
                      ) -> dict[CompileJob, CompileOutcome]:
        """Compile every request in ONE process (cached products are reused)."""

    def run_cell(self, cell: Cell, firmware: FirmwareOutcome, compiled: CompileOutcome | None,
                 out_dir: Path) -> RunResult:
        """Simulate one cell; write its transcript under out_dir; return its result."""

    def verify_cell(self, cell: Cell, compiled: CompileOutcome, out_dir: Path) -> RunResult:
        """Check a verify cell's compiled product on the host's NPU model."""


class Lane(Protocol):
    """How cells of one kind of app firmware (orchestrator.apps.app.Firmware) are built and
    run: the real stages pick a cell's lane from its app (orchestrator.apps.registry)."""

    def unavailable(self, tree: Scratch, cell: Cell) -> str | None:
        """Why the lane cannot run the cell here (beyond its simulator), or None."""

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        """The firmware configuration the cell runs."""

    def build(self, tree: Scratch, config: FirmwareConfig, jobs: int) -> FirmwareOutcome:
        """Configure and build one firmware configuration (incremental)."""

    def run_cell(self, tree: Scratch, cell: Cell, built: Any, compiled: Any,
                 out_dir: Path) -> RunResult:
        """Simulate the cell with the lane's build (`built`) and compile product."""

