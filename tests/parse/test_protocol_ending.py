"""One protocol-ending decision (orchestrator.protocol.ending): the same transcript gets the
same verdict as a live run (sim.classify.verdict_of on the process outcome, then the
runner's exit meaning as a runner run applies it) and from `invoke parse`. Real transcripts
of our firmware (tests/fixtures/protocol, tests/fixtures/runner) and the same with records
lost, damaged or cut off on the way."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.parse.result import result_from_facts
from orchestrator.parse.upstream import parse_text
from orchestrator.protocol import StreamParser
from orchestrator.results import Classification, RunResult, Simulation, Status
from orchestrator.runner.failure_causes import explain_exit
from orchestrator.sim.classify import verdict_of
from orchestrator.sim.process import ProcessOutcome

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SELFTEST_PASS = FIXTURES / "protocol" / "qemu-selftest-pass.log"
SELFTEST_FAULT = FIXTURES / "protocol" / "qemu-selftest-fault.log"
RUNNER_PASS = FIXTURES / "runner" / "qemu-add-pass.log"
RUNNER_NO_INPUT = FIXTURES / "runner" / "qemu-no-input-area.log"
LOST_IN_TRANSPORT = "records were lost or damaged in transport"


def without(path: Path, marker: str) -> str:
    """The transcript with the first line holding `marker` lost."""
    lines = path.read_text().splitlines(keepends=True)
    lost = next(i for i, line in enumerate(lines) if marker in line)
    return "".join(lines[:lost] + lines[lost + 1:])


def cut_before(path: Path, marker: str) -> str:
    text = path.read_text()
    return text[:text.index(marker)]


def live(text: str, exit_code: int) -> RunResult:
    """The RunResult a live run of this transcript gets: the verdict of its process outcome
    and records, then (a runner run) the meaning of the runner's exit status."""
    parser = StreamParser()
    parser.feed(text)
    stream = parser.finish()
    outcome = ProcessOutcome(pid=1, exit_code=exit_code, stopped_by=None, seconds=1.0,
                             transcript=text, log_path=Path("transcript.log"))
    verdict = verdict_of(outcome, stream)
    result = RunResult(status=verdict.status, reason=verdict.summary,
                       classification=Classification(kind=verdict.kind, summary=verdict.summary,
                                                     next_step=verdict.rule.next_step,
                                                     details={"verdict": verdict.cause}),
                       simulation=Simulation(exit_code=exit_code))
    if stream.begin is not None and stream.begin.app == "runner":
        result = explain_exit(result, stream, "add")
    return result


def parsed(text: str) -> RunResult:
    return result_from_facts(parse_text(text))


# (transcript, the process's exit status in a live run): the status a semihosting exit
# gives is the end record's code
CASES = {
    "selftest passes": (SELFTEST_PASS.read_text(), 0),
    "selftest faults": (SELFTEST_FAULT.read_text(), 64),
    "runner passes": (RUNNER_PASS.read_text(), 0),
    "runner finds no input": (RUNNER_NO_INPUT.read_text(), 10),
    "a check record lost": (without(SELFTEST_PASS, "name=crc32"), 0),
    "a tensor chunk lost": (without(SELFTEST_PASS, "tdata index=0 seq=1"), 0),
    "a tensor chunk damaged": (SELFTEST_PASS.read_text().replace("b64=", "b64=X", 1), 0),
    "a runner metric lost": (without(RUNNER_PASS, "@@EOR1 metric"), 0),
    "the end record lost": (without(SELFTEST_PASS, "@@EOR1 end"), 0),
    "cut before the end": (cut_before(SELFTEST_PASS, "@@EOR1 layout"), 0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_transcript_ends_the_same_live_and_parsed(case: str) -> None:
    text, exit_code = CASES[case]
    run, log = live(text, exit_code), parsed(text)
    assert (run.status, run.classification.kind) == (log.status, log.classification.kind)
    if LOST_IN_TRANSPORT in run.reason:
        assert log.reason == run.reason
        assert log.classification.details["verdict"] == "protocol_error"


@pytest.mark.parametrize("case", ["a check record lost", "a runner metric lost",
                                  "a tensor chunk lost", "a tensor chunk damaged"])
def test_records_lost_on_a_pass_are_never_a_pass(case: str) -> None:
    text, exit_code = CASES[case]
    for result in (live(text, exit_code), parsed(text)):
        assert result.status is Status.ERROR and LOST_IN_TRANSPORT in result.reason
        assert result.classification.details["verdict"] == "protocol_error"


def test_a_whole_record_lost_is_counted_against_the_end_record() -> None:
    text, _ = CASES["a check record lost"]
    assert "(55 of 56 arrived intact)" in parsed(text).reason
    assert parsed(SELFTEST_PASS.read_text()).status is Status.PASS
