"""How a protocol run ended, read from its records and, for a live run, the process's exit
status: the one decision live runs (orchestrator.sim.classify) and `invoke parse`
(orchestrator.parse.protocol_log) both take, so a transcript gets the same verdict either way.

A pass counts only when the firmware reported pass with code 0 and every record its end
record announces arrived intact: a record lost (fewer arrived than announced) or damaged in
transport makes the run a protocol error, never a pass. The causes are rows of
data/classifications.toml (pass, protocol_error, incomplete, fail, abort)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from orchestrator.protocol.stream import ParsedStream


@dataclass(frozen=True)
class Ending:
    """The cause of the ending, a one-line summary, its evidence and details."""

    cause: str
    summary: str
    evidence: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


def protocol_ending(stream: ParsedStream, exit_code: int | None = None) -> Ending:
    """How the run of `stream` ended; `exit_code`: the process's exit status (None: not
    known, as in a saved log: the end record's code stands for it)."""
    end = stream.end
    if end is None:
        return Ending("incomplete", f"the output stops before the end record (exit status "
                                    f"{exit_code})", details={"problems": stream.problems[:5]})
    code = end.code if exit_code is None else exit_code
    if end.code is not None and code is not None and end.code != code:
        return Ending("protocol_error",
                      f"exit status {code} disagrees with the end record's code {end.code}")
    if end.status == "pass" and code == 0:
        if stream.complete:
            return Ending("pass", "the firmware reported pass and exited with 0")
        return Ending("protocol_error",
                      f"records were lost or damaged in transport ({stream.frames} of "
                      f"{end.records} arrived intact)", list(stream.problems))
    if end.status == "abort":
        return Ending("abort", f"the firmware aborted (exit status {code})")
    failed = [check.name for check in stream.checks if not check.ok]
    return Ending("fail", f"the firmware reported {end.status}"
                  + (f": failed checks {', '.join(failed)}" if failed else ""),
                  details={"failed_checks": failed, "exit_code": code})
