"""Simulator stop reasons and launch failures (data/fvp_stops.toml): the one place both the
log parser and the FVP run path match them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from orchestrator.foundation.tomlfile import ANY, DATA_DIR, Layout, load_data
from orchestrator.results.model import Kind

FVP_STOPS_PATH = DATA_DIR / "fvp_stops.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
FVP_STOPS_LAYOUT: dict[str, Layout] = {
    "stop_line": ANY,
    "limits": {"reason": ANY, "kind": ANY, "summary": ANY},
    "launch_failures": {"name": ANY, "pattern": ANY, "summary": ANY, "next_step": ANY},
}



@dataclass(frozen=True)
class Limit:
    """A stop reason that means the simulator hit one of its limits."""

    reason: re.Pattern[str]
    kind: Kind
    summary: str


@dataclass(frozen=True)
class LaunchFailure:
    """A line meaning the simulator never ran the firmware."""

    name: str
    pattern: re.Pattern[str]
    summary: str
    next_step: str | None = None


@dataclass(frozen=True)
class StopTable:
    """The stop line, the limit reasons and the launch failures, in precedence order."""

    stop_line: re.Pattern[str]
    limits: tuple[Limit, ...]
    launch_failures: tuple[LaunchFailure, ...]


@cache
def stop_table() -> StopTable:
    """The table in data/fvp_stops.toml, compiled."""
    data = load_data(FVP_STOPS_PATH, FVP_STOPS_LAYOUT)
    return StopTable(
        stop_line=re.compile(data["stop_line"], re.MULTILINE),
        limits=tuple(Limit(re.compile(row["reason"], re.IGNORECASE), Kind(row["kind"]),
                           row["summary"]) for row in data["limits"]),
        launch_failures=tuple(LaunchFailure(row["name"], re.compile(row["pattern"], re.MULTILINE),
                                            row["summary"], row.get("next_step"))
                              for row in data["launch_failures"]),
    )


def stop_reason(text: str) -> str | None:
    """The reason of the first 'Simulation is stopping. Reason: …' line in `text`."""
    found = stop_table().stop_line.search(text)
    return found[1] if found else None


def limit_of(reason: str) -> Limit | None:
    """The limit a stop reason names (None when the reason is not a limit)."""
    return next((limit for limit in stop_table().limits if limit.reason.search(reason)), None)


def launch_failure_in(text: str) -> tuple[LaunchFailure, re.Match[str]] | None:
    """The first launch failure (in table order) found in `text`, with its match."""
    for failure in stop_table().launch_failures:
        found = failure.pattern.search(text)
        if found:
            return failure, found
    return None
