"""What running a Corstone FVP needs beyond its command line: its environment (what setup
recorded, one function for every run path), and why it stopped (the FVP's exit status alone
never means success)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from orchestrator.foundation.paths import Scratch
from orchestrator.parse.classify import deciding_problems, secondary_finding, status_of
from orchestrator.parse.fvp_stops import launch_failure_in, limit_of, stop_reason, stop_table
from orchestrator.results import Classification, Kind, RunResult, Status
from orchestrator.setup.execstack import TUNABLE, host_execstack_fix
from orchestrator.setup.lock import LOCK_NAME, artifact_of_binary, runtime_env
from orchestrator.sim.limits import recorded_hint
from orchestrator.targets import Simulator

PYTHON_DIR = "python"   # Corstone-320 ships its own python (and libpython) here


def guessed_environment(binary: Path) -> dict[str, str]:
    """For an FVP setup never probed: the execstack tunable when this glibc takes it (2.42+;
    older glibc needs the flag cleared, which only setup does: it changes the install) and
    its bundled python, if any."""
    from orchestrator.setup.probe import EXECSTACK_TUNABLE, bundled_python_env  # FVP only

    extra = {"GLIBC_TUNABLES": EXECSTACK_TUNABLE} if host_execstack_fix() == TUNABLE else {}
    for parent in binary.resolve().parents:
        if (parent / PYTHON_DIR / "lib").is_dir():
            extra.update(bundled_python_env(parent / PYTHON_DIR))
            break
    return extra


def _lock_holders(binary: Path, work: Scratch | None) -> Iterator[Scratch]:
    """Scratch trees whose setup lock may list `binary`: `work`, then those it lies under."""
    if work is not None:
        yield work
    for parent in binary.resolve().parents:
        if (parent / LOCK_NAME).is_file():
            yield Scratch(parent)


def fvp_environment(binary: Path, work: Scratch | None = None) -> dict[str, str]:
    """The environment setup's probe recorded for `binary` (it started with exactly that);
    the guess only for an FVP no setup lock lists."""
    for holder in _lock_holders(binary, work):
        artifact = artifact_of_binary(holder, binary)
        if artifact is not None:
            return runtime_env(holder, artifact)
    return guessed_environment(binary)


@dataclass(frozen=True)
class FvpStop:
    """Why an FVP run ended other than by the firmware exiting."""

    kind: Kind         # cpu_time_limit | cycle_limit | launch_failure
    summary: str
    evidence: str
    next_step: str | None = None   # a cause-specific step (e.g. the glibc execstack fix)


def fvp_stop(transcript: str) -> FvpStop | None:
    """A launch failure or a limit stop found in the FVP's output (data/fvp_stops.toml). A
    launcher line is a launch failure only while the firmware has printed nothing: once it
    has, the simulator did start (the rule `invoke parse` applies, LogFacts.firmware_printed)."""
    from orchestrator.parse.upstream import parse_text  # the console-log parser: FVP runs only

    failed = launch_failure_in(transcript)
    if failed is not None and not parse_text(transcript).firmware_printed():
        failure, found = failed
        return FvpStop(Kind.LAUNCH_FAILURE, failure.summary, _line_of(transcript, found.start()),
                       failure.next_step)
    stop = stop_table().stop_line.search(transcript)
    limit = limit_of(stop[1]) if stop else None
    if stop is None or limit is None:
        return None
    return FvpStop(limit.kind, limit.summary, stop[0].strip())


def overruled_launch_lines(transcript: str) -> list[dict[str, Any]]:
    """Launcher, start-up or build lines the firmware's own output overrules, as `invoke
    parse` keeps them (classification.details.secondary); none while no such line is there."""
    if launch_failure_in(transcript) is None:
        return []
    from orchestrator.parse.upstream import parse_text

    _, overruled = deciding_problems(parse_text(transcript))
    return [secondary_finding(problem) for problem in overruled]


def _line_of(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return text[start:end if end >= 0 else None].strip()


FVP_NEXT = {Kind.CPU_TIME_LIMIT: "raise the limit: invoke run ... --timeout <seconds>",
            Kind.CYCLE_LIMIT: "raise the FVP's cycle/time limit, or run a smaller model",
            Kind.LAUNCH_FAILURE: "check the FVP install: invoke doctor (then invoke setup --only "
                                 "fvp)"}


def explain_fvp_stop(result: RunResult, transcript: str) -> RunResult:
    """A failed FVP run that stopped at a limit or never launched says so (exit 0 or not).
    A launcher line in a run whose firmware printed decides nothing: the verdict stays what
    the firmware's output gave, the line is kept as a secondary finding."""
    if result.simulation is not None:
        result.simulation.stop_reason = stop_reason(transcript) or result.simulation.stop_reason
    overruled = overruled_launch_lines(transcript)
    secondary = {"secondary": overruled} if overruled else {}
    result.classification.details.update(secondary)
    stop = fvp_stop(transcript)
    if result.status is Status.PASS or stop is None:
        return result
    next_step = stop.next_step or FVP_NEXT[stop.kind]
    hint = recorded_hint(result.target.options, "deadline") if result.target else None
    if stop.kind is Kind.CPU_TIME_LIMIT and hint:
        next_step = f"the FVP stopped at its --timelimit: {hint}"
    return replace(result, status=status_of(stop.kind), reason=stop.summary,
                   classification=Classification(
                       kind=stop.kind, summary=stop.summary, next_step=next_step,
                       evidence=[stop.evidence],
                       details={"fvp_stop": stop.kind.value, **secondary}))


def setup_artifact(simulator: Simulator) -> str:
    """The setup item installing `simulator` (fvp-corstone-300 holds both U55 and U65 FVPs)."""
    from orchestrator.setup.catalogue import load_setup_catalogue

    for artifact in load_setup_catalogue().artifacts.values():
        if simulator.binary in artifact.binaries:
            return artifact.name
    return simulator.name
