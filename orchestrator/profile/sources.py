"""What a profile's counts mean (orchestrator/data/profile.toml): unit, timing or not, note."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data

PROFILE_DATA = DATA_DIR / "profile.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
PROFILE_LAYOUT: dict[str, Layout] = {
    "schema": ANY,
    "sources": {EACH: {"unit": ANY, "timing": ANY, "note": ANY}},
    "npu": {EACH: {"note": ANY}},
}



@dataclass(frozen=True)
class TickSource:
    """One tick source: its unit, whether it is timing, and the sentence that says so."""

    name: str
    unit: str
    timing: bool
    note: str


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    return load_data(PROFILE_DATA, PROFILE_LAYOUT)


def tick_source(name: str | None) -> TickSource:
    """The meaning of `name` (an unknown source is reported as such, never as timing)."""
    table = _data()["sources"].get(name or "")
    if table is None:
        return TickSource(name or "unknown", "ticks", False,
                          f"ticks from an unknown source {name!r}: not known to be timing")
    return TickSource(name or "", str(table["unit"]), bool(table["timing"]), str(table["note"]))


def npu_note(executor: str | None) -> str | None:
    """What a delegate row means for the NPU executor (None without an NPU)."""
    table = _data()["npu"].get(executor or "")
    return str(table["note"]) if table else None
