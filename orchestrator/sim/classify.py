"""The verdict of a protocol run: from the process outcome and the parsed records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestrator.parse.classify import CauseRule, cause_rules
from orchestrator.protocol import ParsedStream
from orchestrator.protocol.ending import protocol_ending
from orchestrator.results.model import MAX_EVIDENCE, Kind, Status
from orchestrator.sim.limits import RunLimits
from orchestrator.sim.process import ProcessOutcome


@dataclass(frozen=True)
class Verdict:
    """Why the run ended: a cause (a row under its Kind in data/classifications.toml), a
    one-line summary, evidence and details; the kind and status come from the cause's row."""

    cause: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", self.evidence[:MAX_EVIDENCE])

    @property
    def rule(self) -> CauseRule:
        """The cause's row: kind, status, next step template."""
        return cause_rules()[self.cause]

    @property
    def kind(self) -> Kind:
        """The failure kind (the one vocabulary of every result)."""
        return self.rule.kind

    @property
    def status(self) -> Status:
        """The run status this verdict implies."""
        return self.rule.status


def _tail(transcript: str, count: int = 3) -> list[str]:
    lines = [line for line in transcript.replace("\r", "").splitlines() if line.strip()]
    return lines[-count:]


def _stopped(outcome: ProcessOutcome, stream: ParsedStream,
             limits: RunLimits | None) -> Verdict | None:
    """A host stop; the summary names the setting to raise."""
    if outcome.stopped_by is None:
        return None
    hint = f"; {limits.raise_hint(outcome.stopped_by)}" if limits else ""
    if outcome.stopped_by == "deadline":
        return Verdict("timeout",
                       f"the host deadline passed after {outcome.seconds:.1f} s "
                       f"(the firmware never exited){hint}", _tail(outcome.transcript),
                       {"seconds": round(outcome.seconds, 3), "end_seen": stream.end is not None})
    return Verdict("hang",
                   "the no-output watchdog stopped a silent simulator "
                   f"after {outcome.seconds:.1f} s{hint}", _tail(outcome.transcript),
                   {"seconds": round(outcome.seconds, 3), "watchdog": "no_output"})


def _stale(stream: ParsedStream, expected_build_id: str | None) -> Verdict | None:
    if stream.begin is None or not expected_build_id:
        return None
    if stream.begin.build_id == expected_build_id:
        return None
    return Verdict("stale_firmware",
                   f"the firmware that ran has build id {stream.begin.build_id[:12]}, "
                   f"not the {expected_build_id[:12]} just built (stale or wrong ELF)",
                   [], {"expected": expected_build_id, "reported": stream.begin.build_id})


def _no_begin(stream: ParsedStream, outcome: ProcessOutcome) -> Verdict | None:
    if stream.begin is not None:
        return None
    code = outcome.exit_code
    if not outcome.transcript.strip():
        return Verdict("no_output", f"the simulator printed nothing (exit status {code})")
    if code not in (None, 0) and stream.frames == 0:
        return Verdict("launch_failure",
                       f"the simulator failed before the firmware reported (exit status {code})",
                       _tail(outcome.transcript))
    return Verdict("no_output", f"no protocol begin record (exit status {code})",
                   _tail(outcome.transcript), {"problems": stream.problems[:5]})


def _fault(stream: ParsedStream) -> Verdict | None:
    if not stream.faults:
        return None
    fault = stream.faults[0]
    return Verdict("hard_fault", fault.describe(), [fault.describe()], {
        "fault": fault.kind, "causes": fault.causes,
        "registers": {"pc": fault.pc, "lr": fault.lr, "xpsr": fault.xpsr,
                      "cfsr": fault.cfsr, "hfsr": fault.hfsr},
        "address": fault.address})


def _ending(stream: ParsedStream, outcome: ProcessOutcome) -> Verdict:
    """How the run ended (orchestrator.protocol.ending, as `invoke parse` decides it); a
    missing end record shows the transcript's last lines."""
    ending = protocol_ending(stream, outcome.exit_code)
    evidence = _tail(outcome.transcript) if ending.cause == "incomplete" else ending.evidence
    return Verdict(ending.cause, ending.summary, evidence, ending.details)


def verdict_of(outcome: ProcessOutcome, stream: ParsedStream,
              expected_build_id: str | None = None, limits: RunLimits | None = None
              ) -> Verdict:
    """Host stops first, then a stale ELF, faults, a missing begin, and how the run ended."""
    return (_stopped(outcome, stream, limits) or _stale(stream, expected_build_id) or _fault(stream)
            or _no_begin(stream, outcome) or _ending(stream, outcome))
