"""JUnit XML (the common Jenkins/GitLab/GitHub format): one testcase per cell."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict

from orchestrator.regress.report.records import CellRecord, RegressDocument, describe_upstream
from orchestrator.regress.verdict.baseline import fmt

FAILURE_OUTCOMES = {"fail": "failure", "regressed": "failure", "xpass": "failure",
                    "error": "error", "timeout": "error"}


def render_junit(document: RegressDocument) -> str:
    """The report as JUnit XML text: a testsuite per lane, a testcase per cell."""
    suites = ET.Element("testsuites", name=document.matrix.name)
    lanes: dict[str, list[CellRecord]] = defaultdict(list)
    for cell in document.cells:
        lanes[cell.lane].append(cell)
    for lane, cells in lanes.items():
        suites.append(_suite(document, lane, cells))
    _count(suites, list(suites))
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def _suite(document: RegressDocument, lane: str, cells: list[CellRecord]) -> ET.Element:
    """One testsuite with its properties and testcases."""
    suite = ET.Element("testsuite", name=f"{document.matrix.name}.{lane}",
                       timestamp=document.started_at, hostname=document.host.node,
                       id=document.run_id)
    properties = ET.SubElement(suite, "properties")
    for name, value in (("run_id", document.run_id), ("matrix", document.matrix.path),
                        ("shard", document.shard or "all")):
        ET.SubElement(properties, "property", name=name, value=str(value))
    for cell in cells:
        suite.append(_case(document, cell))
    _count(suite, [case for case in suite if case.tag == "testcase"])
    return suite


def _case(document: RegressDocument, cell: CellRecord) -> ET.Element:
    """One cell: failure / error / skipped with the reason; details and log path as text."""
    case = ET.Element("testcase", name=cell.key,
                      classname=f"{document.matrix.name}.{cell.lane}.{cell.target}",
                      time=f"{_own_seconds(cell):.3f}")
    outcome = cell.outcome.value
    if outcome in FAILURE_OUTCOMES:
        element = ET.SubElement(case, FAILURE_OUTCOMES[outcome], type=outcome,
                                message=cell.reason)
        element.text = _details(cell)
    elif outcome in ("skipped", "xfail"):
        prefix = "xfail: " if outcome == "xfail" else ""
        ET.SubElement(case, "skipped", type=outcome, message=prefix + cell.reason)
    out = ET.SubElement(case, "system-out")
    out.text = _details(cell)
    return case


def _own_seconds(cell: CellRecord) -> float:
    """The cell's compile and simulate time (a shared firmware build is not the cell's)."""
    return float(sum(seconds for phase, seconds in cell.seconds.items() if phase != "build"))


def _details(cell: CellRecord) -> str:
    """Reason, log path, output directory and metrics of a cell, one per line."""
    lines = [f"outcome: {cell.outcome.value}", f"reason: {cell.reason}",
             f"log: {cell.log or '-'}", f"output: {cell.out_dir}"]
    if cell.upstream:
        lines.append(f"upstream: {describe_upstream(cell.upstream)}")
    if cell.baseline:
        lines.append(f"baseline: {cell.baseline.summary}")
    if cell.cluster:
        lines.append(f"cluster: {cell.cluster.describe()}")
    lines += [f"metric {name} = {fmt(value)}" for name, value in cell.metrics.items()]
    return "\n".join(lines)


def _count(element: ET.Element, cases: list[ET.Element]) -> None:
    """Count attributes from the testcases (or suites) below; testsuites has no `skipped`."""
    if element.tag == "testsuites":
        totals = {key: sum(int(suite.get(key, "0")) for suite in cases)
                  for key in ("tests", "failures", "errors")}
        seconds = sum(float(suite.get("time", "0")) for suite in cases)
    else:
        totals = {"tests": len(cases),
                  "failures": sum(case.find("failure") is not None for case in cases),
                  "errors": sum(case.find("error") is not None for case in cases),
                  "skipped": sum(case.find("skipped") is not None for case in cases)}
        seconds = sum(float(case.get("time", "0")) for case in cases)
    for key, value in totals.items():
        element.set(key, str(value))
    element.set("time", f"{seconds:.3f}")
