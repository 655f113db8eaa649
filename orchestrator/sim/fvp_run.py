"""What running a Corstone FVP needs beyond its command line: its environment (what setup
recorded, one function for every run path), and why it stopped (the FVP's exit status alone
never means success)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from orchestrator.parse.fvp_stops import launch_failure_in, limit_of, stop_table
from orchestrator.paths import Scratch
from orchestrator.results.model import Kind
from orchestrator.setup.lock import LOCK_NAME, artifact_of_binary, runtime_env
from orchestrator.setup.probe import EXECSTACK_TUNABLE, bundled_python_env

PYTHON_DIR = "python"   # Corstone-320 ships its own python (and libpython) here


def guessed_environment(binary: Path) -> dict[str, str]:
    """For an FVP setup never probed: the execstack tunable and its bundled python, if any."""
    extra = {"GLIBC_TUNABLES": EXECSTACK_TUNABLE}
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
    """A launch failure or a limit stop found in the FVP's output (data/fvp_stops.toml)."""
    failed = launch_failure_in(transcript)
    if failed is not None:
        failure, found = failed
        return FvpStop(Kind.LAUNCH_FAILURE, failure.summary, _line_of(transcript, found.start()),
                       failure.next_step)
    stop = stop_table().stop_line.search(transcript)
    limit = limit_of(stop[1]) if stop else None
    if stop is None or limit is None:
        return None
    return FvpStop(limit.kind, limit.summary, stop[0].strip())


def _line_of(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return text[start:end if end >= 0 else None].strip()
