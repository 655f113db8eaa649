"""The verdict of a protocol run: from the process outcome and the parsed records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestrator.parse.classify import CauseRule, cause_rules
from orchestrator.protocol import ParsedStream
from orchestrator.results.model import MAX_EVIDENCE, Kind, Status
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


def _stopped(outcome: ProcessOutcome, stream: ParsedStream) -> Verdict | None:
    if outcome.stopped_by == "deadline":
        return Verdict("timeout",
                       f"the host deadline passed after {outcome.seconds:.1f} s "
                       f"(the firmware never exited)", _tail(outcome.transcript),
                       {"seconds": round(outcome.seconds, 3), "end_seen": stream.end is not None})
    if outcome.stopped_by == "no_output":
        return Verdict("hang",
                       "the no-output watchdog stopped a silent simulator "
                       f"after {outcome.seconds:.1f} s", _tail(outcome.transcript),
                       {"seconds": round(outcome.seconds, 3), "watchdog": "no_output"})
    return None


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
    end, code = stream.end, outcome.exit_code
    if end is None:
        return Verdict("incomplete",
                       f"the output stops before the end record (exit status {code})",
                       _tail(outcome.transcript), {"problems": stream.problems[:5]})
    if end.code is not None and code is not None and end.code != code:
        return Verdict("protocol_error",
                       f"exit status {code} disagrees with the end record's code {end.code}")
    if end.status == "pass" and code == 0:
        if stream.complete:
            return Verdict("pass", "the firmware reported pass and exited with 0")
        return Verdict("protocol_error",
                       f"records were lost or damaged in transport ({stream.frames} of "
                       f"{end.records} arrived intact)", list(stream.problems))
    failed = [check.name for check in stream.checks if not check.ok]
    if end.status == "abort":
        return Verdict("abort", f"the firmware aborted (exit status {code})")
    return Verdict("fail",
                   f"the firmware reported {end.status}"
                   + (f": failed checks {', '.join(failed)}" if failed else ""),
                   [], {"failed_checks": failed, "exit_code": code})


def judge(outcome: ProcessOutcome, stream: ParsedStream,
          expected_build_id: str | None = None) -> Verdict:
    """Host stops first, then a stale ELF, faults, a missing begin, and how the run ended."""
    return (_stopped(outcome, stream) or _stale(stream, expected_build_id) or _fault(stream)
            or _no_begin(stream, outcome) or _ending(stream, outcome))
