"""Simulator lines: FVP banner, version, stop reasons, simulated time, and launch failures."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from orchestrator.parse.consumer import RuleConsumer, flag, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.fvp_stops import launch_failure_in, limit_of, stop_table
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import FVP_ETHOS_U_VERSION, Kind

SIMULATOR_NAME = re.compile(r"\b((?:FVP|VHT)_[A-Za-z0-9_-]+|qemu-system-\w+)(?![\w/-])")
FVP_ERROR_CODE = re.compile(r"^Error: \((E\d+)\)")


def note_simulator(text: str, facts: LogFacts) -> str | None:
    """Record the simulator named in `text` (FVP_*, VHT_*, qemu-system-*) and return it."""
    found = SIMULATOR_NAME.search(text)
    if found and facts.versions.simulator is None:
        facts.versions.simulator = PurePosixPath(found[1]).name
    return found[1] if found else None


@rule(r"^\s*Ethos-U rev (\w+) --- (.+?)\s*$")
def _ethosu_banner(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.versions.extra[FVP_ETHOS_U_VERSION] = f"rev {match[1]} ({match[2]})"
    facts.mark("simulator", line.number)


@rule(r"Fast Models \[([^\]]+)\]")
def _fast_models(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.versions.simulator_version = f"Fast Models {match[1]}"
    facts.mark("simulator", line.number)


def _stopping(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.simulation.stop_reason = match[1]
    if limit_of(match[1]) is not None:
        facts.mark("stop_limit", line.number)
    facts.mark("stopped", line.number)


@rule(r"^Info: /OSCI/SystemC: Simulation stopped by user")
def _stopped_by_user(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    if facts.simulation.stop_reason is None:
        facts.simulation.stop_reason = "Simulation stopped by user"
    facts.mark("stopped", line.number)


@rule(r"^\[\w+\s*\]\[[^\]]*\]\[([\d.]+ ?[munp]?s)\] (.*)$")
def _timestamped(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    """A SystemC report (`[warning ][main@0][1300 ns] ...`): its stamp is when the report was
    raised in the SystemC kernel, not the simulated time of the run (a run stopped after 30
    simulated seconds prints `[01 ns]`), so it is recognised but not read as a time."""
    facts.mark("stopped" if "stopped" in match[2].lower() else "simulator", line.number)


@rule(r"^\s*Simulated time\s*:\s*(\S+)")
def _stat_time(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.simulation.simulated_time = match[1]


def _launch_failure(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    found = launch_failure_in(line.message)
    if found is None:
        return
    failure, matched = found
    details = {"cause": failure.name}
    name = note_simulator(line.text, facts)
    if name:
        details["simulator"] = PurePosixPath(name).name
    code = FVP_ERROR_CODE.search(line.message)
    if code:
        details["fvp_error"] = code[1]
    summary = failure.summary
    if matched.groups() and matched[1]:
        details["detail"] = matched[1]
        summary += f" ({matched[1]})"
    problem = facts.pre_run_problem(Kind.LAUNCH_FAILURE, summary, line, **details)
    problem.next_step = failure.next_step


@rule(r"^Error: \((E\d+)\) (.*)$")
def _fvp_error(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    if facts.firmware_printed():  # a simulator error mid-run, not a failed start
        facts.error_line(line.text)
        return
    summary = f"the FVP failed to start ({match[1]})"
    facts.pre_run_problem(Kind.LAUNCH_FAILURE, summary, line, fvp_error=match[1])


@rule(
    r"(?:FVP_|VHT_|qemu-system-)\S*: (?:command )?not found|"
    r"(?:FVP_|VHT_|qemu-system-)\S*: No such file or directory"
)
def _cannot_start(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    note_simulator(line.text, facts)
    facts.pre_run_problem(Kind.LAUNCH_FAILURE, "the simulator could not be started", line)


@rule(r"^(qemu-system-\w+): (.*)$")
def _qemu_error(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    note_simulator(match[1], facts)
    if facts.firmware_printed():  # a simulator error mid-run, not a failed start
        facts.error_line(line.text)
        return
    facts.pre_run_problem(Kind.LAUNCH_FAILURE, f"QEMU refused to start: {match[2]}", line)


def _command_line(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    note_simulator(line.text, facts)
    facts.runner["simulator_command"] = line.text


class SimulatorLines(RuleConsumer):
    """What the FVP or QEMU itself prints, including why it could not start or why it stopped."""

    rules = (
        _ethosu_banner,
        _fast_models,
        (stop_table().stop_line, _stopping),
        _stopped_by_user,
        _timestamped,
        _stat_time,
        (
            re.compile("|".join(f"(?:{f.pattern.pattern})" for f in stop_table().launch_failures)),
            _launch_failure,
        ),
        _fvp_error,
        _cannot_start,
        _qemu_error,
        flag(
            r"^\s*\(C\) COPYRIGHT \d{4}(?:-\d{4})? Arm Limited|^\s*ALL RIGHTS RESERVED|"
            r"^Copyright \d{4}-\d{4} ARM Limited\.$|^All Rights Reserved\.$",
            "simulator",
        ),
        flag(r"^telnetterminal\d+: Listening for serial connection on port \d+", "simulator"),
        flag(r"Failed to initialize timing-adapter|Timing adapter has no effect", "simulator"),
        (
            re.compile(r"(?:FVP|VHT)_\w+\S*(?:\s.*)?\s-[aC]\s|qemu-system-\w+\s.*-machine"),
            _command_line,
        ),
    )
