"""What running a Corstone FVP needs beyond its command line: its environment (what setup
recorded, one function for every run path), and why it stopped (the FVP's exit status alone
never means success)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from orchestrator.paths import Scratch
from orchestrator.setup.lock import LOCK_NAME, entry_of_binary
from orchestrator.setup.probe import EXECSTACK_TUNABLE, bundled_python_env

PYTHON_DIR = "python"   # Corstone-320 ships its own python (and libpython) here
_STOP = re.compile(r"^Info: Simulation is stopping\. Reason: (.+?)\.?\s*$", re.MULTILINE)
# (pattern, kind, summary) for FVP stop reasons and launch failures, first match wins.
STOP_KINDS = (
    (re.compile(r"CPU time has been exceeded", re.I), "cpu_time_limit",
     "the FVP stopped at its --timelimit (CPU time exceeded)"),
    (re.compile(r"cycle limit", re.I), "cycle_limit", "the FVP stopped at its cycle limit"),
    (re.compile(r"simulated time", re.I), "cycle_limit",
     "the FVP stopped at its simulated-time limit"),
)
LAUNCH_FAILURES = (
    (re.compile(r"cannot enable executable stack"), "glibc refuses the FVP's executable-stack "
     f"libraries (GLIBC_TUNABLES={EXECSTACK_TUNABLE} was not honoured)"),
    (re.compile(r"cannot execute binary file|Exec format error"),
     "the FVP binary cannot run on this host (wrong architecture?)"),
    (re.compile(r"error while loading shared libraries: (\S+)"),
     "the FVP cannot load a shared library"),
)


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
        entry = entry_of_binary(holder, binary)
        if entry is not None:
            return dict(entry.get("env", {}))
    return guessed_environment(binary)


@dataclass(frozen=True)
class FvpStop:
    """Why an FVP run ended other than by the firmware exiting."""

    kind: str          # cpu_time_limit | cycle_limit | launch_failure
    summary: str
    evidence: str


def fvp_stop(transcript: str) -> FvpStop | None:
    """A launch failure or a limit stop found in the FVP's output, else None."""
    for pattern, summary in LAUNCH_FAILURES:
        found = pattern.search(transcript)
        if found:
            return FvpStop("launch_failure", summary, _line_of(transcript, found.start()))
    stop = _STOP.search(transcript)
    if stop is None:
        return None
    for pattern, kind, summary in STOP_KINDS:
        if pattern.search(stop.group(1)):
            return FvpStop(kind, summary, stop.group(0).strip())
    return None


def stop_reason(transcript: str) -> str | None:
    """The text after 'Simulation is stopping. Reason:', if the FVP printed it."""
    found = _STOP.search(transcript)
    return found.group(1) if found else None


def _line_of(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    return text[start:end if end >= 0 else None].strip()
