"""Simulator versions for results, cached by binary path and mtime (saves a process per run)."""

from __future__ import annotations

import json
from pathlib import Path

from orchestrator.foundation.hosttools import tool_version
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.foundation.paths import Scratch

CACHE_NAME = "simulator-versions.json"


def _cache_key(binary: Path) -> str:
    status = binary.stat()
    return f"{binary.resolve()}:{status.st_mtime_ns}:{status.st_size}"


def simulator_version(work: Scratch, binary: Path, flag: str = "--version") -> str | None:
    """The version `binary` prints ('' never cached as a version; None when unknown)."""
    cache = work.root / CACHE_NAME
    try:
        known = json.loads(cache.read_text()) if cache.is_file() else {}
        key = _cache_key(binary)
    except (OSError, ValueError):
        return tool_version(binary, flag) or None
    if key not in known:
        version = tool_version(binary, flag)
        if not version:
            return None
        known[key] = version
        write_json_atomic(cache, known, indent=1)
    return str(known[key])
