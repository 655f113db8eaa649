"""`run`'s report (re-exported by orchestrator.api.reports)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.api.report_base import Number, Report, kept_numbers
from orchestrator.results.model import RunResult, Status


@dataclass(frozen=True)
class RunReport(Report):
    """`run`: the RunResult (result.json) of one run."""

    result: RunResult

    @property
    def passed(self) -> bool:
        return self.result.status is Status.PASS

    @property
    def diagnosis(self) -> str:
        result = self.result
        line = f"{result.model or 'run'} on {result.target.name}: {result.status.value}"
        if result.reason:
            line += f": {result.reason}"
        if not self.passed and result.classification.next_step:
            line += f"; next: {result.classification.next_step}"
        return line

    def numbers(self) -> dict[str, Number]:
        result = self.result
        comparison = result.comparison
        return kept_numbers({
            "npu.cycles": result.npu.cycles if result.npu else None,
            "npu.executor": result.npu.executor if result.npu else None,
            "cpu.cycles": result.cpu.total if result.cpu else None,
            "error.max_abs": comparison.max_absolute_error if comparison else None,
            "mismatches": comparison.mismatches if comparison else None,
            "vela.npu_cycles": result.vela.npu_cycles if result.vela else None,
            "seconds": result.timings_s.get("total"),
        })

    @property
    def run_dir(self) -> Path | None:
        """scratch/runs/<run id>/ (where result.json and the transcript are)."""
        where = self.result.artifacts.get("result") or self.result.artifacts.get("log")
        return Path(where).parent if where else None

    def to_dict(self) -> Any:
        return self.result.to_dict()
