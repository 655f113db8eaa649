"""The regression report document (report.json, schema 1) as types.

One `RegressDocument` is what the engine's run becomes, what regress-merge combines, what
--rerun-failed reads back and what the JUnit, Markdown and HTML writers render. Its JSON is
schema 1's layout key for key: optional sections (`toolset`, `cluster`, `merged_from`,
`baseline_updates`, `phases_s`, a cell's `cluster`) are left out when absent, numbers keep
their JSON type (an integer metric stays an integer through a merge), and a cell's `result`
stays the run result document as its own schema wrote it (results/, not this file, reads it).
"""

from __future__ import annotations

import dataclasses
import os
import platform
from dataclasses import dataclass, field
from typing import Any

from orchestrator import __version__
from orchestrator.regress.verdict.baseline import Tolerance
from orchestrator.regress.verdict.outcome import FAILING, Outcome, Placement
from orchestrator.results.codec import from_plain, to_plain
from orchestrator.results.model import Profile, RunResult

REPORT_SCHEMA = 1
REPORT_KIND = "ethosu-orchestrator/regress-report"
Number = float | int          # JSON numbers keep their type through a read and a write
OMIT = {"omit": True}         # field metadata: left out of the JSON while it has its default


@dataclass(frozen=True)
class HostRecord:
    """The machine that ran the job."""

    node: str
    system: str
    machine: str
    cores: int | None


def this_host() -> HostRecord:
    return HostRecord(platform.node(), platform.system(), platform.machine(), os.cpu_count())


@dataclass(frozen=True)
class MatrixRef:
    """The matrix file a report ran."""

    name: str
    path: str


@dataclass(frozen=True)
class RunOptions:
    """The options of `invoke regress` that chose and ran the cells."""

    jobs: int | None = None
    filter: str | None = None
    rerun_failed: bool = False
    require: list[str] = field(default_factory=list)
    require_arg: str | None = None
    baselines: str | None = None


@dataclass(frozen=True)
class MergedOptions:
    """A regress-merge report: how many shard reports it combines."""

    merged: int


@dataclass(frozen=True, kw_only=True)
class StepRecord:
    """A build or compile the job needed: whether it worked or was reused, its time, its log."""

    key: str
    ok: bool
    cached: bool
    seconds: Number
    reason: str
    log: str | None


@dataclass(frozen=True, kw_only=True)
class BuildRecord(StepRecord):
    """One firmware build (`key`: its configuration)."""

    target: str
    app: str


@dataclass(frozen=True, kw_only=True)
class CompileRecord(StepRecord):
    """One model compile (`key` is model@target)."""

    options: dict[str, Any]     # the option set's TOML values, as the matrix gave them


@dataclass(frozen=True)
class UpstreamRecord:
    """Upstream's own expectation of a cell (peer matrices)."""

    status: str
    reason: str = ""
    tolerance: dict[str, Number] = field(default_factory=dict)
    source: str = ""

    def describe(self) -> str:
        """'xfail: insufficient memory on U55 (atol 0.1, qtol 1; backends/arm/test/models/
        test_x.py:42)'."""
        facts = ", ".join(f"{name} {value:g}" for name, value in self.tolerance.items())
        where = "; ".join(part for part in (facts, self.source) if part)
        text = f"{self.status}: {self.reason}" if self.reason else self.status
        return f"{text} ({where})" if where else text


def describe_upstream(upstream: UpstreamRecord | None) -> str:
    """A cell's upstream expectation in one line, '-' when the matrix has none."""
    return upstream.describe() if upstream else "-"


@dataclass(frozen=True)
class DeltaRecord:
    """One metric that moved against its baseline."""

    metric: str
    baseline: Number | None
    value: Number | None
    delta: Number | None
    relative: Number | None
    ok: bool
    tolerance: dict[str, Number]


@dataclass(frozen=True)
class BaselineRecord:
    """A cell's metrics read against its baseline entry."""

    status: str     # "ok" | "regressed" | "no-baseline" | "toolset-changed"
    summary: str
    deltas: list[DeltaRecord]
    compared: int
    version_changes: dict[str, list[str | None]]


@dataclass
class CellRecord:
    """Everything the report says about one cell."""

    key: str
    model: str
    model_spec: str
    target: str
    options: str
    option_values: dict[str, Any]   # the option set's TOML values, as the matrix gave them
    mode: str
    lane: str
    sim: str | None
    sim_kind: str | None
    timeout_s: Number
    expect: str
    expect_reason: str
    expect_kind: str | None
    upstream: UpstreamRecord | None
    weight: int
    outcome: Outcome
    reason: str
    out_dir: str
    log: str | None = None
    run_id: str = ""
    metrics: dict[str, Number] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    baseline: BaselineRecord | None = None
    seconds: dict[str, Number] = field(default_factory=dict)
    cached: dict[str, bool] = field(default_factory=dict)
    result: dict[str, Any] | None = None    # the run result document (results/ schema)
    cluster: Placement | None = field(default=None, metadata=OMIT)

    @property
    def failing(self) -> bool:
        return self.outcome in FAILING

    @property
    def profile(self) -> Profile | None:
        """The per-operator profile of a cell that ran with the event tracer (--profile)."""
        if not self.result or not self.result.get("profile"):
            return None
        return RunResult.from_dict(self.result).profile


@dataclass(frozen=True)
class ServedFromCache:
    """Cells whose every stage before the simulation was reused, and per stage how many
    cells reused it."""

    cells: list[str]
    stages: dict[str, int]
    total: int

    def line(self) -> str:
        """One line for the summaries."""
        stages = ", ".join(f"{stage} {count}" for stage, count in self.stages.items())
        return (f"served from cache: {len(self.cells)}/{self.total} cells"
                + (f" (by stage: {stages})" if stages else ""))


@dataclass(frozen=True)
class WorkerRow:
    """One cluster worker in the report."""

    address: str
    host: str
    pid: int
    products: str
    scratch: str
    state: str      # "fit" | "refused"
    reason: str | None
    cells_unavailable: int
    cells: int


@dataclass(frozen=True)
class ClusterSection:
    """A cluster job: its scheduler, each worker, the cells retried and resumed."""

    scheduler: str | None
    workers: list[WorkerRow]
    retried: list[str]
    resumed: list[str]


@dataclass(frozen=True)
class ToolsetRecord:
    """The AOT toolset the matrix ran under."""

    name: str
    packages: dict[str, str]
    runtime_tag: str
    default: bool
    vela_flags: list[str]


@dataclass(frozen=True)
class MergedFrom:
    """One shard report a merged report combines."""

    run_id: str
    shard: str | None
    verdict: str


@dataclass
class RegressDocument:
    """report.json: the run, its cells, builds and compiles, the counts and the verdict."""

    run_id: str
    matrix: MatrixRef
    cells: list[CellRecord]
    shard: str | None = None
    started_at: str = ""
    finished_at: str = ""
    options: RunOptions | MergedOptions = field(default_factory=RunOptions)
    builds: list[BuildRecord] = field(default_factory=list)
    compiles: list[CompileRecord] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    served_from_cache: ServedFromCache | None = None
    verdict: str = "pass"
    host: HostRecord = field(default_factory=this_host)
    tool: str = __version__
    schema: int = REPORT_SCHEMA
    kind: str = REPORT_KIND
    phases_s: dict[str, Number] | None = field(default=None, metadata=OMIT)
    toolset: ToolsetRecord | None = field(default=None, metadata=OMIT)
    baseline_updates: list[str] | None = field(default=None, metadata=OMIT)
    cluster: ClusterSection | None = field(default=None, metadata=OMIT)
    merged_from: list[MergedFrom] | None = field(default=None, metadata=OMIT)

    @property
    def failing(self) -> list[CellRecord]:
        """Cells whose outcome fails the job."""
        return [cell for cell in self.cells if cell.failing]

    def cache_line(self) -> str:
        """How many cells were served from cache, and by stage."""
        return (self.served_from_cache or served_from_cache(self.cells)).line()

    def to_json(self) -> dict[str, Any]:
        """The schema 1 JSON document."""
        plain: dict[str, Any] = to_json(self)
        return plain

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> RegressDocument:
        """Read a schema 1 document (KeyError/TypeError/ValueError when it is not one)."""
        options = document.get("options") or {}
        typed = from_plain(cls, {key: value for key, value in document.items()
                                 if key != "options"})
        if not isinstance(typed, RegressDocument):
            raise TypeError(f"not a report document: {type(typed).__name__}")
        typed.options = MergedOptions(**options) if "merged" in options else \
            RunOptions(**options)
        return typed


def served_from_cache(cells: list[CellRecord]) -> ServedFromCache:
    """Which cells were served from cache (every stage before their simulation reused: the
    product compiled and the firmware built), and per stage how many cells reused it."""
    stages = sorted({stage for cell in cells for stage in cell.cached})
    return ServedFromCache([cell.key for cell in cells
                            if cell.cached and all(cell.cached.values())],
                           {stage: sum(1 for cell in cells if cell.cached.get(stage))
                            for stage in stages},
                           len(cells))


def to_json(record: Any) -> Any:
    """A record as plain JSON values: the fields marked OMIT are left out while they hold
    their default."""
    if dataclasses.is_dataclass(record) and not isinstance(record, type):
        return {item.name: to_json(getattr(record, item.name))
                for item in dataclasses.fields(record)
                if not (item.metadata.get("omit") and getattr(record, item.name) is None)}
    if isinstance(record, dict):
        return {str(key): to_json(value) for key, value in record.items()}
    if isinstance(record, list):
        return [to_json(value) for value in record]
    return to_plain(record)


def tolerance_json(tolerance: Tolerance) -> dict[str, Number]:
    return {"rel": tolerance.rel, "abs": tolerance.abs}
