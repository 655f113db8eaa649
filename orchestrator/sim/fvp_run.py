"""What running a Corstone FVP needs beyond its command line: environment fixes, and why it
stopped (the FVP's exit status alone never means success)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# glibc >= 2.41 refuses the FVP's executable-stack model libraries unless told otherwise;
# older glibc ignores an unknown tunable.
EXECSTACK_TUNABLE = "glibc.rtld.execstack=2"
PYTHON_LIB = Path("python") / "lib"   # Corstone-320 ships its own libpython here
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


def fvp_environment(binary: Path) -> dict[str, str]:
    """Extra environment for an FVP: the execstack tunable and Corstone-320's python libs."""
    extra = {"GLIBC_TUNABLES": EXECSTACK_TUNABLE}
    for parent in binary.resolve().parents:
        if (parent / PYTHON_LIB).is_dir():
            extra["LD_LIBRARY_PATH"] = str(parent / PYTHON_LIB)
            break
    return extra


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
