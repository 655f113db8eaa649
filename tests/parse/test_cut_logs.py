"""The verdict is conservative: a log cut at any line boundary is a PASS only if the cut kept
the line that completed the run; a stop line appended to an unfinished cut never makes it one.

Exhaustive over every fixture (transcripts, protocol and runner logs) and every boundary,
both ways (head kept, tail kept): a few thousand parses, about ten seconds.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from orchestrator.parse import parse_text, result_from_facts
from orchestrator.parse.facts import COMPLETION_MARKERS
from orchestrator.results import Status

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
LOGS = sorted(
    [*FIXTURES.glob("transcripts/*.log"), *FIXTURES.glob("protocol/*.log"),
     *FIXTURES.glob("runner/*.log")]
)
STOP = "Info: Simulation is stopping. Reason: CPU time has been exceeded."


def lines_of(path: Path) -> list[str]:
    """The log's lines with their endings."""
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def status_of(lines: list[str]) -> Status:
    """The verdict on these lines as one log."""
    return result_from_facts(parse_text("".join(lines))).status


@cache
def completion_lines(path: Path) -> tuple[int, ...]:
    """The 1-based lines of the whole log that carry a completion marker (EOT, `Program
    complete`, the protocol's end record, ...), in order."""
    markers = parse_text(path.read_text(encoding="utf-8")).markers
    return tuple(sorted({markers[name] for name in COMPLETION_MARKERS if name in markers}))


def test_fixtures_exist_and_some_complete():
    assert len(LOGS) >= 40
    assert sum(bool(completion_lines(path)) for path in LOGS) >= 14


@pytest.mark.parametrize("path", LOGS, ids=lambda path: path.name)
def test_no_cut_passes_without_its_completion_line(path):
    lines = lines_of(path)
    done = completion_lines(path)
    for cut in range(len(lines) + 1):
        if status_of(lines[:cut]) is Status.PASS:  # kept lines 1..cut
            assert done and cut >= done[0], f"head of {cut} lines passed"
        if status_of(lines[cut:]) is Status.PASS:  # kept lines cut+1..end
            assert done and cut < done[-1], f"tail from line {cut + 1} passed"


@pytest.mark.parametrize("path", LOGS, ids=lambda path: path.name)
def test_a_stop_line_after_an_unfinished_cut_is_never_a_pass(path):
    lines = lines_of(path)
    done = completion_lines(path)
    last = done[0] - 1 if done else len(lines)
    for cut in range(last + 1):
        head = [*lines[:cut]]
        if head and not head[-1].endswith("\n"):
            head[-1] += "\n"
        assert status_of([*head, STOP + "\n"]) is not Status.PASS, f"cut at {cut} passed"
