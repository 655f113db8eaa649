"""A cell's outcome: the run's status read against the matrix's expectation and baseline."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from orchestrator.regress.plan.cells import Cell, Expect
from orchestrator.regress.verdict.baseline import BaselineCheck
from orchestrator.results import RunResult, Status


class Outcome(str, Enum):
    """The verdict of one cell."""

    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"
    XFAIL = "xfail"
    XPASS = "xpass"
    REGRESSED = "regressed"

    @property
    def failing(self) -> bool:
        """True for outcomes that make the job fail."""
        return self in FAILING


FAILING = frozenset({Outcome.FAIL, Outcome.ERROR, Outcome.TIMEOUT, Outcome.XPASS,
                     Outcome.REGRESSED})
_FROM_STATUS = {Status.FAIL: Outcome.FAIL, Status.ERROR: Outcome.ERROR,
                Status.TIMEOUT: Outcome.TIMEOUT, Status.SKIPPED: Outcome.SKIPPED}


@dataclass(frozen=True)
class Placement:
    """Where a cluster job ran a cell: its worker, how products reached it, the attempts."""

    worker: str | None = None
    products: str | None = None
    attempts: int = 1
    retried: bool = False
    workers_tried: list[str] = field(default_factory=list)
    resumed: bool | None = field(default=None, metadata={"omit": True})

    def describe(self) -> str:
        """'tcp://w:1, products shared, attempt 2 (retried)'."""
        if self.resumed:
            return "finished by an earlier run of this job (resumed)"
        text = f"{self.worker}, products {self.products}"
        return text + (f", attempt {self.attempts} (retried)" if self.retried else "")


@dataclass
class CellReport:
    """Everything the reports say about one cell."""

    cell: Cell
    outcome: Outcome
    reason: str
    out_dir: str
    result: RunResult | None = None
    log: str | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    versions: dict[str, str] = field(default_factory=dict)
    baseline: BaselineCheck | None = None
    seconds: dict[str, float] = field(default_factory=dict)
    cached: dict[str, bool] = field(default_factory=dict)
    run_id: str = ""
    placement: Placement | None = None   # cluster jobs

    @property
    def key(self) -> str:
        return self.cell.key


def skipped(cell: Cell, reason: str, out_dir: str, run_id: str) -> CellReport:
    """A cell that was not run, with the reason."""
    return CellReport(cell, Outcome.SKIPPED, reason, out_dir, run_id=run_id)


def expected_outcome(cell: Cell, result: RunResult) -> tuple[Outcome, str]:
    """The outcome of a finished run given the cell's expectation."""
    if cell.expect is Expect.XFAIL:
        if result.status is Status.PASS:
            return Outcome.XPASS, (f"expected to fail ({cell.expect_reason}) but passed; "
                                   "remove the xfail from the matrix")
        kind = result.classification.kind.value
        if cell.expect_kind and result.status is not Status.SKIPPED and kind != cell.expect_kind:
            return Outcome.FAIL, (f"expected to fail as {cell.expect_kind} but ended as {kind}: "
                                  f"{result.reason}")
        if result.status is not Status.SKIPPED:
            return Outcome.XFAIL, f"{cell.expect_reason} ({result.status.value}: {result.reason})"
    if result.status is Status.PASS:
        return Outcome.PASS, result.reason
    return _FROM_STATUS[result.status], result.reason


def apply_baseline(report: CellReport, check: BaselineCheck) -> None:
    """Attach a baseline check; a passing cell out of tolerance becomes REGRESSED."""
    report.baseline = check
    if report.outcome is Outcome.PASS and check.status == "regressed":
        report.outcome = Outcome.REGRESSED
        report.reason = "metrics out of tolerance: " + check.summary()
