"""Verify cells: `invoke verify`'s library function per cell. The product the batch compile
made is checked partition by partition on the host's NPU model against the TOSA
reference model; the cell ends exact (pass), departs (fail: how many elements differ and the
first departing operation), or stops (error: the model's one line naming what it does not run).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from orchestrator.comparison.mismatch import output_mismatch
from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.regress.plan.cells import Cell
from orchestrator.results import Classification, Kind, RunResult, Status, TargetInfo, Versions
from orchestrator.tosa.shared_reference import TosaReferences

VERIFY_JSON = "verify.json"
# One NPU model run at a time: the verify cells' memory adds up (the NPU model's arrays and
# the TOSA reference) and the two cores are better spent on one cell's numpy than on two.
_ONE_AT_A_TIME = threading.Lock()
_REFERENCES = TosaReferences()   # shared by the configurations of one lowering


def verify_cell(cell: Cell, product: Any, out_dir: Path) -> RunResult:
    """Verify one compiled product; the verdict as a RunResult, the report in verify.json."""
    from orchestrator.npu_model.execute import Npu
    from orchestrator.npu_model.verify import verify_product

    started = time.perf_counter()
    try:
        with _ONE_AT_A_TIME:
            report = verify_product(product, Npu.for_target_name(cell.target), cell.model,
                                    cell.target, references=_REFERENCES)
    except OrchestratorError as error:
        return _stopped(cell, error, time.perf_counter() - started)
    document = report.to_json()
    path = out_dir / VERIFY_JSON
    write_json_atomic(path, document)
    said = verdict(document)
    passed = RunResult(
        status=Status.PASS, reason=said,
        classification=Classification(Kind.SUCCESS, said, "none"),
        model=cell.model,
        target=TargetInfo(cell.target, None, cell.option_dict),
        versions=Versions(executorch=document["versions"].get("executorch"),
                          vela=document["versions"].get("vela"),
                          extra={k: str(v) for k, v in document["versions"].items()
                                 if k not in ("executorch", "vela")}),
        timings_s={"simulate": round(time.perf_counter() - started, 3)},
        artifacts={"verify": str(path)},
    )
    if document["exact"]:
        return passed
    return output_mismatch(passed, said, said, _rerun(cell))


def verdict(document: dict[str, Any]) -> str:
    """'exact (6 checks, 1 partition)' or 'departs: partition 0 output 0 (random-0) 12/400
    differ, max 3; first departing operation ...'."""
    from orchestrator.npu_model.locate import describe_departure

    checks = document["checks"]
    if document["exact"]:
        return (f"exact ({len(checks)} output checks, {document['partitions']} "
                f"partition{'' if document['partitions'] == 1 else 's'})")
    first = next(check for check in checks if not check["exact"])
    text = (f"departs: partition {first['partition']} output {first['output']} "
            f"({first['inputs']} inputs) {first['differing']}/{first['elements']} differ, "
            f"max {first['max_difference']}")
    departure = next(iter(document.get("departures", [])), None)
    if departure is not None and departure["operation"] is not None:
        text += f"; {describe_departure(departure)}"
    return text


def _stopped(cell: Cell, error: OrchestratorError, seconds: float) -> RunResult:
    """The NPU model (or the partition interface) stops on something it does not run."""
    reason = f"stops: {error.cause}"
    return RunResult(
        status=Status.ERROR,
        reason=reason,
        classification=Classification(Kind.EXECUTION_FAILURE, reason,
                                      error.next_step or _rerun(cell)),
        model=cell.model,
        target=TargetInfo(cell.target, None, cell.option_dict),
        timings_s={"simulate": round(seconds, 3)},
    )


def _rerun(cell: Cell) -> str:
    return invoke_line("verify", model=cell.model_spec, target=cell.target)
