"""BundleIO verification: error statistics per testset and Test_result PASS/FAIL."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.parse.status_codes import status_details
from orchestrator.results.model import Comparison, Kind

REFERENCE = "BundleIO reference outputs in the .bpte (checked on target)"


def _comparison(facts: LogFacts) -> Comparison:
    """The BundleIO comparison record, created on first use."""
    if facts.comparison is None:
        facts.comparison = Comparison(reference=REFERENCE)
    return facts.comparison


@rule(r"^=== Error stats for testset (\d+) ===")
def _testset(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    _comparison(facts).testset = int(match[1])


@rule(r"^\s*(mean|max)_(absolute|relative)_error:\s*(\S+)")
def _statistic(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    try:
        value = float(match[3])
    except ValueError:
        return
    setattr(_comparison(facts), f"{match[1]}_{match[2]}_error", value)


@rule(r"^Model output don't match expected BundleIO bpte ref data\. rtol=(\S+) atol=(\S+)")
def _mismatch(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    comparison = _comparison(facts)
    comparison.rtol, comparison.atol = float(match[1]), float(match[2])


@rule(r"Test_result: (PASS|FAIL)")
def _result(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    passed = match[1] == "PASS"
    _comparison(facts).passed = passed
    facts.mark("bundle_pass" if passed else "bundle_fail", line.number)
    if not passed:
        facts.problem(Kind.OUTPUT_MISMATCH, "outputs do not match the BundleIO reference", line)


@rule(r"^Bundle verification failed with status (0x[0-9a-fA-F]+)")
def _verification_failed(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    """The status names why verification failed: it belongs to the mismatch it explains."""
    details = status_details(int(match[1], 16))
    facts.runner.update(details)
    for problem in facts.problems:
        if problem.kind is Kind.OUTPUT_MISMATCH:
            problem.details.update(details)


class BundleIO(RuleConsumer):
    """On-target comparison against the reference outputs bundled in a .bpte."""

    rules = (
        _testset,
        _statistic,
        _mismatch,
        _result,
        _verification_failed,
        (re.compile(r"^Model output match expected BundleIO bpte ref data"), lambda *_: None),
    )
