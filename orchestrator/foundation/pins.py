"""Read the version pins (orchestrator/data/pins.toml): the single source of truth."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data

PINS_PATH = DATA_DIR / "pins.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
PINS_LAYOUT: dict[str, Layout] = {
    "schema": ANY,
    "python": ANY,   # package -> pinned version
    "artifacts": {EACH: {
        "kind": ANY, "title": ANY, "version": ANY, "archive": ANY, "needed_for": ANY,
        "bin_dir": ANY, "binaries": ANY, "system_min_version": ANY, "origin": ANY,
        "installer": ANY, "bundled_python": ANY,
        "hosts": {EACH: {"url": ANY, "top_dir": ANY, "model_dir": ANY, "md5": ANY, "sha256": ANY,
                         "digest_note": ANY}}}},
    "sources": {EACH: {"url": ANY, "tag": ANY, "commit": ANY, "package": ANY, "needed_for": ANY,
                       "required_files": ANY, "parent": ANY, "path": ANY}},
    "inputs": {EACH: {"url": ANY, "sha256": ANY, "top_dir": ANY, "package": ANY,
                      "needed_for": ANY, "digest_note": ANY}},
}



@lru_cache(maxsize=1)
def load_pins() -> dict[str, Any]:
    """The parsed pins file."""
    return load_data(PINS_PATH, PINS_LAYOUT)


def python_pin(package: str) -> str:
    """The pinned version of a Python package (KeyError if unpinned)."""
    return str(load_pins()["python"][package])


def source_needs(table: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    """A [sources.X] table's needed_for ('all' unless set) and required_files (none unless
    set): read the same by the setup catalogue and by the runtime's source lookup."""
    return table.get("needed_for", "all"), tuple(table.get("required_files", ()))
