"""Unity unit-test results printed by firmware (ThrowTheSwitch Unity, e.g. on an FVP).

    path/main.c:38:test_my_sum_fail:FAIL: Expected 2 Was 0
    -----------------------
    4 Tests 1 Failures 0 Ignored
    FAIL
"""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, flag, rule
from orchestrator.parse.facts import LogFacts, Problem
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import Kind

UNITY = "unity"


def _failure(facts: LogFacts) -> Problem | None:
    """The test-failure problem recorded so far, if any."""
    return next((p for p in facts.problems if p.kind is Kind.TEST_FAILURE), None)


def _record(facts: LogFacts, line: LogLine, summary: str, **details: object) -> Problem:
    """The one test-failure problem of the log, created on first use."""
    found = _failure(facts)
    if found is None:
        found = facts.problem(Kind.TEST_FAILURE, summary, line, failed_tests=[], **details)
    return found


@rule(r"^(?P<file>\S+?):(?P<line>\d+):(?P<test>[\w.]+):(?P<result>PASS|FAIL|IGNORE)(?::\s*(?P<why>.*))?$")
def _test(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    results = facts.runner.setdefault(UNITY, {"passed": 0, "failed": 0, "ignored": 0})
    outcome = {"PASS": "passed", "FAIL": "failed", "IGNORE": "ignored"}[match["result"]]
    results[outcome] += 1
    facts.mark("runner", line.number)
    if match["result"] != "FAIL":
        return
    where = f"{match['file']}:{match['line']}"
    failure = _record(facts, line, f"unit test {match['test']} failed at {where}")
    failure.details["failed_tests"].append(
        {"test": match["test"], "where": where, "message": match["why"] or ""}
    )


@rule(r"^(\d+) Tests? (\d+) Failures? (\d+) Ignored\s*$")
def _summary(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    tests, failures, ignored = int(match[1]), int(match[2]), int(match[3])
    facts.runner.setdefault(UNITY, {})["summary"] = {
        "tests": tests, "failures": failures, "ignored": ignored
    }
    facts.mark("runner", line.number)
    if failures == 0:
        facts.mark("tests_passed", line.number)
        return
    failure = _record(facts, line, f"{failures} of {tests} unit tests failed")
    failure.details.update(tests=tests, failures=failures, ignored=ignored)
    named = [entry["test"] for entry in failure.details["failed_tests"]]
    failure.summary = f"{failures} of {tests} unit tests failed" + (
        f" ({', '.join(named)})" if named else ""
    )


class UnityLines(RuleConsumer):
    """Per-test PASS/FAIL/IGNORE lines and the summary; a failed test is a test failure."""

    rules = (
        _test,
        _summary,
        flag(r"^-+\[ UNITY (?:BEGIN|END) \]-+$", "runner"),
    )

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Also take the ruler and the final OK/FAIL word once Unity output was seen."""
        if UNITY in facts.runner and re.match(r"^(?:-{5,}|OK|FAIL(?:ED)?)\s*$", line.text):
            return True
        return super().feed(line, facts)
