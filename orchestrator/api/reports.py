"""What the API's jobs return: typed reports, each with `.passed`, a one-line `.diagnosis`
(the verdict and, on failure, the first thing that departed and the next step), the headline
`.numbers()` (flat: for JUnit properties and dashboards) and `.to_dict()` / `.to_json()` (the
document `--json` prints)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.api.report_base import Number, Report
from orchestrator.api.report_base import kept_numbers as _kept
from orchestrator.api.run_report import RunReport

__all__ = ["CompileReport", "EvaluateReport", "InspectReport", "Number", "RegressReport",
           "Report", "RunReport", "VerifyReport"]

if TYPE_CHECKING:
    from orchestrator.artifacts.inspection import Inspection
    from orchestrator.regress.report.records import RegressDocument

@dataclass(frozen=True)
class CompileReport(Report):
    """`compile`: one summary per target (model, delegation, Vela estimate, memory, paths)."""

    summaries: list[dict[str, Any]]

    @property
    def passed(self) -> bool:
        return True     # a compile that fails raises OrchestratorError

    @property
    def diagnosis(self) -> str:
        return "; ".join(
            f"{s['model']} -> {s['target']}: {s['delegation']['npu_op_count']} ops on the NPU "
            f"in {s['delegation']['delegated_partitions']} partition(s), "
            f"{s['delegation']['cpu_op_count']} on the CPU" for s in self.summaries)

    def numbers(self) -> dict[str, Number]:
        first = self.summaries[0]
        return _kept({"npu_ops": first["delegation"]["npu_op_count"],
                      "cpu_ops": first["delegation"]["cpu_op_count"],
                      "vela.npu_cycles": first["npu_cycles_estimate"],
                      "vela.total_cycles": first["total_cycles_estimate"],
                      "memory.pte_bytes": first["memory"]["pte_bytes"]})

    @property
    def pte(self) -> Path:
        """The first target's program."""
        return Path(self.summaries[0]["paths"]["pte"])

    def to_dict(self) -> Any:
        return self.summaries[0] if len(self.summaries) == 1 else self.summaries


@dataclass(frozen=True)
class VerifyReport(Report):
    """`verify`: one document per target (exact or not, the checks, departures, findings)."""

    documents: list[dict[str, Any]]

    @property
    def passed(self) -> bool:
        return all(document["exact"] for document in self.documents)

    @property
    def exact(self) -> bool:
        return self.passed

    @property
    def diagnosis(self) -> str:
        return "; ".join(_verify_line(document) for document in self.documents)

    def numbers(self) -> dict[str, Number]:
        checks = [check for document in self.documents for check in document["checks"]]
        return _kept({"checks": len(checks),
                      "differing": sum(check["differing"] for check in checks),
                      "seconds": sum(d["seconds"].get("total", 0.0) for d in self.documents)})

    def to_dict(self) -> Any:
        return self.documents[0] if len(self.documents) == 1 else self.documents


def _verify_line(document: dict[str, Any]) -> str:
    """The verdict, then the first departing operation or the first write finding."""
    from orchestrator.npu_model.locate import describe_departure

    line = (f"{document['model']} on {document['npu']['config']}: "
            f"{'exact' if document['exact'] else 'NOT exact'}")
    departures = [d for d in document.get("departures", []) if d["operation"] is not None]
    if departures:
        line += f"; {describe_departure(departures[0])}"
    findings = document.get("write_findings", [])
    if findings:
        line += f"; {findings[0]['sentence']}"
    return line


@dataclass(frozen=True)
class EvaluateReport(Report):
    """`evaluate`: the evaluation document (evaluation.json)."""

    document: dict[str, Any]

    @property
    def passed(self) -> bool:
        return bool(self.document["passed"])

    @property
    def diagnosis(self) -> str:
        summary = self.document["summary"]
        line = (f"{self.document['model']} on {self.document['target']}: "
                f"{'PASS' if self.passed else 'FAIL'}, {summary['completed']}/"
                f"{summary['requested']} samples, exact {summary['exact']}")
        if self.document.get("gates"):
            line += f"; gates: {self.document['gates']}"
        if self.document.get("stopped"):
            line += f"; stopped: {self.document['stopped']}"
        return line

    def numbers(self) -> dict[str, Number]:
        summary = self.document["summary"]
        return _kept({"samples": summary["completed"], "exact": summary["exact"],
                      "top1_agreement": summary["top1_agreement"],
                      "snr_db_min": summary["snr_db_min"],
                      "accuracy.device": summary["accuracy"]["device"],
                      "seconds_per_sample": self.document["seconds_per_sample"]})

    def to_dict(self) -> Any:
        from orchestrator.results.codec import to_plain

        return to_plain(self.document)


@dataclass(frozen=True)
class RegressReport(Report):
    """`regress`: the report document (report.json's JSON; `typed`: the same document as
    types) and the files written beside it."""

    document: dict[str, Any]
    paths: dict[str, Path] = field(default_factory=dict)
    toolsets: bool = False      # a --toolsets A,B comparison (toolsets.json), not a verdict
    typed: RegressDocument | None = None

    @property
    def passed(self) -> bool:
        return str(self.document.get("verdict", "pass")) != "fail"

    @property
    def diagnosis(self) -> str:
        counts = self.document.get("counts", {})
        line = f"regress {self.document.get('verdict', 'pass')}: " + ", ".join(
            f"{name} {value}" for name, value in counts.items() if value and name != "total")
        failing = [cell for cell in self.document.get("cells", [])
                   if cell["outcome"] in ("fail", "error", "timeout", "regressed", "xpass")]
        if failing:
            line += f"; first: {failing[0]['key']} {failing[0]['outcome']}: " \
                    f"{failing[0]['reason']}"
        return line

    def numbers(self) -> dict[str, Number]:
        return _kept({f"cells.{name}": value
                      for name, value in self.document.get("counts", {}).items()})

    def to_dict(self) -> Any:
        return self.document


@dataclass(frozen=True)
class InspectReport(Report):
    """`inspect`: one artifact's inspection (`.inspection`); passed when the pinned runtime
    can run it, else the diagnosis names every reason it cannot."""

    inspection: Inspection

    @property
    def passed(self) -> bool:
        return self.inspection.runnable

    @property
    def diagnosis(self) -> str:
        inspection = self.inspection
        if inspection.runnable:
            where = ", ".join(inspection.targets) or "the CPU"
            return f"{inspection.path.name}: runnable here ({where})"
        return f"{inspection.path.name}: not runnable here: {'; '.join(inspection.reasons)}"

    def numbers(self) -> dict[str, Number]:
        return _kept({"size": self.inspection.size,
                      "delegates.ethosu": len(self.inspection.ethosu)})

    def to_dict(self) -> Any:
        return self.inspection.to_dict()
