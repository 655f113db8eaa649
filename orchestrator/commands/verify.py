"""`invoke verify`: compile (cached), run every NPU partition on the NPU model and on
the TOSA reference model, print the verdict; exit 0 only when every output is exact."""

from __future__ import annotations

import dataclasses
from typing import Any

from orchestrator.api.verify_job import model_interface, verify_with
from orchestrator.artifacts.render import render_verify
from orchestrator.foundation.cli import print_json
from orchestrator.npu_model import coverage as npu_coverage
from orchestrator.npu_model.locate import describe_departure
from orchestrator.options.inspect import VerifyTask

__all__ = ["model_interface", "render", "verify_command"]

EXIT_NOT_EXACT = 1


def render(document: dict[str, Any]) -> str:
    """The verdict and one line per output check (a ready artifact's: per lane)."""
    if "artifact" in document:
        return render_verify(document)
    verdict = "exact" if document["exact"] else "NOT exact"
    flags = " ".join(document["compile_options"].get("vela_flags", []))
    chosen = f"{document['quantize']}, Vela {flags}" if flags else document["quantize"]
    versions = document.get("versions", {})
    lines = [f"{document['model']} ({chosen}) on {document['npu']['config']} "
             f"(NPU model) vs TOSA "
             f"reference: {verdict}",
             f"  compiled by executorch {versions.get('executorch')}, Vela "
             f"{versions.get('ethos-u-vela')} (toolset {document.get('toolset', 'pinned')})"]
    for check in document["checks"]:
        state = "exact" if check["exact"] else (
            f"{check['differing']}/{check['elements']} differ, max {check['max_difference']}")
        lines.append(f"  partition {check['partition']} output {check['output']} "
                     f"({check['inputs']} inputs): {state}")
    for departure in document.get("departures", []):
        where = (describe_departure(departure) if departure["operation"] is not None
                 else f"no departing operation named: {departure['note']}")
        lines.append(f"  partition {departure['partition']} ({departure['inputs']} inputs): "
                     f"{where}")
    if document.get("observation_refused"):
        lines.append(f"  not checked: {document['observation_refused']}")
    findings = document.get("write_findings", [])
    if findings:   # one sentence: the first write over a live tensor, the rest counted
        more = f" ({len(findings) - 1} more writes over live tensors in the JSON)" \
            if len(findings) > 1 else ""
        lines.append(f"  partition {findings[0]['partition']}: {findings[0]['sentence']}{more}")
    seconds = document["seconds"]
    lines.append("  seconds: " + ", ".join(f"{k} {v}" for k, v in seconds.items()))
    return "\n".join(lines)


def coverage_command(json: bool) -> int:
    """The coverage table: a summary, then one row per command, field and value."""
    if json:
        print_json([dataclasses.asdict(entry) for entry in npu_coverage.entries()])
    else:
        print("\n".join([*npu_coverage.summary(), "", *npu_coverage.listing()]))
    return 0


def verify_command(task: VerifyTask, json: bool = False, coverage: bool = False) -> int:
    """Verify every target the task names (orchestrator.api.verify_job); exit 0 only when every
    output is exact. `coverage`: print the NPU model's coverage table instead (nothing is
    compiled)."""
    if coverage:
        return coverage_command(json)
    report = verify_with(task)
    if json:
        print_json(report.to_dict())
    else:
        print("\n".join(render(document) for document in report.documents))
    return 0 if report.exact else EXIT_NOT_EXACT
