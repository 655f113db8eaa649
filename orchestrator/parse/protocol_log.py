"""Our own UART protocol records (@@EOR1 ...) inside a log, folded into the same facts.

orchestrator.protocol decodes the records; this module only says what they mean for a
RunResult, so `invoke parse` reads our transcripts as well as upstream ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.parse.classify import cause_rules
from orchestrator.parse.exit_codes import RESULT_KIND, classify_exit
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.parse.protocol_values import cpu_cycles, outputs, reported_model_version
from orchestrator.parse.status_codes import status_details
from orchestrator.protocol.ending import protocol_ending
from orchestrator.results.model import NPU_MODEL_VERSION, Kind

if TYPE_CHECKING:
    from orchestrator.protocol import ParsedStream, StreamParser

PROTOCOL_MARK = "@@EOR"
ABORT_SUMMARY = "the ExecuTorch runtime aborted"


class ProtocolLines:
    """Collects protocol lines while streaming; applies what they said when the log ends."""

    def __init__(self) -> None:
        self._parser: StreamParser | None = None

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Take any line carrying a protocol record."""
        if PROTOCOL_MARK not in line.text:
            return False
        if self._parser is None:
            from orchestrator.protocol import StreamParser

            self._parser = StreamParser()
        self._parser.feed_line(line.text)
        facts.mark("protocol", line.number)
        return True

    def finish(self, facts: LogFacts) -> None:
        """Fold the decoded records into the facts (once)."""
        if self._parser is not None:
            apply_protocol(facts, self._parser.finish())
            self._parser = None


def apply_protocol(facts: LogFacts, stream: ParsedStream) -> None:
    """What the records say: identity, exact outputs, cycles, faults and how the run ended."""
    if stream.begin is not None:
        facts.mark("runner", facts.log.lines)
        facts.versions.extra["firmware_build_id"] = stream.begin.build_id
        facts.runner["protocol_app"] = stream.begin.app
    model = reported_model_version(stream)
    if model:
        facts.versions.extra[NPU_MODEL_VERSION] = model
    facts.outputs = facts.outputs or outputs(stream)
    facts.cpu = facts.cpu or cpu_cycles(stream)
    for problem in stream.problems[:3]:
        facts.error_line(f"protocol: {problem}")
    _fault(facts, stream)
    _ending(facts, stream)


def _fault(facts: LogFacts, stream: ParsedStream) -> None:
    """The first fault record, unless the text fault line already reported it."""
    if not stream.faults or any(p.kind is Kind.HARD_FAULT for p in facts.problems):
        return
    fault = stream.faults[0]
    registers = {
        name: value
        for name in ("pc", "lr", "xpsr", "cfsr", "hfsr", "address")
        if (value := getattr(fault, name)) is not None
    }
    summary = f"the CPU took a {fault.describe()}"
    facts.add_problem(
        Kind.HARD_FAULT,
        summary,
        fault.describe(),
        registers=registers,
        fault_type=fault.kind,
        causes=fault.causes,
    )


def _ending(facts: LogFacts, stream: ParsedStream) -> None:
    """How the run ended (orchestrator.protocol.ending, as a live run decides it): a pass
    completes the run; records lost or damaged on the way make it a protocol error; a
    failure is classified by its exit code and note. Without an end record the facts say how
    far the log got; a fault end is the fault's (its record or text line)."""
    end = stream.end
    ending = protocol_ending(stream)
    if end is None or (end.status == "fault" and ending.cause == "fail"):
        return
    if ending.cause in ("pass", "protocol_error"):
        if ending.cause == "protocol_error":
            facts.add_problem(cause_rules()[ending.cause].kind, ending.summary,
                              next(iter(ending.evidence), f"end records={end.records}"),
                              verdict=ending.cause)
        facts.mark_complete()
        return
    _failure(facts, stream, end.status, end.code)


def _failure(facts: LogFacts, stream: ParsedStream, status: str, code: int | None) -> None:
    """A fail/abort end record, classified by the runner's exit code and its last note."""
    meaning = classify_exit(code)
    notes = [frame.fields for frame in stream.other if frame.type == "note"]
    note = notes[-1] if notes else {}
    details: dict[str, object] = {"exit_code": code}
    if "et_error" in note:
        details.update(status_details(int(note["et_error"], 0)))
    failed = [check.name for check in stream.checks if not check.ok]
    if failed:
        details["failed_checks"] = failed
    kind = RESULT_KIND.get(meaning.kind, Kind.ASSERTION)
    summary = note.get("message") or (ABORT_SUMMARY if status == "abort" else meaning.text)
    if failed:
        summary = f"{summary}: failed checks {', '.join(failed)}"
    facts.add_problem(kind, summary, f"end status={status} code={code}", **details)
