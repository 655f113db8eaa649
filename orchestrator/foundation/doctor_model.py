"""The row type `invoke doctor` prints; every stage contributes rows of this shape."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import Enum


class State(str, Enum):
    OK = "ok"
    MISSING = "missing"
    WRONG_VERSION = "wrong version"
    UNUSABLE = "unusable"


@dataclass(frozen=True)
class Requirement:
    """One thing the tool needs: its state, where it was found, and the command that fixes it."""

    name: str
    state: State
    found: str = ""
    version: str = ""
    fix: str = ""
    needed_by: tuple[str, ...] = ()   # target names, or "*" for every target
    detail: str = ""
    category: str = ""   # "python", "tool", "simulator", "source", "disk"; simulators of a
    #                      target are alternatives: one working simulator is enough

    @property
    def ok(self) -> bool:
        return self.state is State.OK

    def to_json(self) -> dict[str, object]:
        data = asdict(self)
        data["state"] = self.state.value
        data["needed_by"] = list(self.needed_by)
        return data
