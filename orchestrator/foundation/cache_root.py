"""Where the user-level cache lives: shared by every scratch and clone of this user. Apart from
the scratch layout (foundation/paths.py, which re-exports these) so that the earliest start-up
code (foundation/dataclass_code.py) can find it before any record type is made."""

from __future__ import annotations

import os
from pathlib import Path

USER_CACHE_ENV = "ETHOSU_ORCH_CACHE_DIR"   # a directory, or "0" to keep builds in the scratch
USER_CACHE_NAME = "ethosu-orchestrator"


def user_cache() -> Path | None:
    """The user-level cache shared by every scratch and clone of this user: $ETHOSU_ORCH_CACHE_DIR,
    else $XDG_CACHE_HOME/ethosu-orchestrator, else ~/.cache/ethosu-orchestrator; None when
    $ETHOSU_ORCH_CACHE_DIR is "0" (everything stays in the scratch). Resolved once per value of
    the variables it reads (a warm run asks ~70 times)."""
    chosen = os.environ.get(USER_CACHE_ENV, "")
    inputs = (chosen, os.environ.get("XDG_CACHE_HOME", ""), os.environ.get("HOME", ""))
    if inputs not in _resolved:
        _resolved[inputs] = _locate(chosen, inputs[1])   # HOME: read by Path.home()
    return _resolved[inputs]


_resolved: dict[tuple[str, str, str], Path | None] = {}


def _locate(chosen: str, xdg_cache: str) -> Path | None:
    if chosen == "0":
        return None
    if chosen:
        return Path(chosen).expanduser().resolve()
    base = xdg_cache or Path.home() / ".cache"
    return Path(base).expanduser().resolve() / USER_CACHE_NAME
