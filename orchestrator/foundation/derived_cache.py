"""Tables derived from files, kept on disk by the content they derive from: a table is
computed once per content (in any process) and read back while that content is unchanged.

The key is a cheap digest of the inputs' stat (path, size, modification time in ns), not of
their bytes: an edit changes the modification time, so the key, so the table is computed
again. Entries live under <user cache>/derived/ (shared by every scratch and clone, like the
runtime builds), or scratch/build/derived with ETHOSU_ORCH_CACHE_DIR=0; a missing, unreadable
or unwritable entry only costs the computation."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_json_atomic
from orchestrator.foundation.paths import scratch, user_cache

DERIVED_DIR = "derived"
RACY_S = 2.0   # a file modified this recently is not kept by its stat (see file_memo)


def derived_root() -> Path:
    """Where derived tables are kept."""
    cache = user_cache()
    return cache / DERIVED_DIR if cache is not None else scratch().build / DERIVED_DIR


def stat_digest(paths: Iterable[Path], salt: str = "") -> str:
    """A digest of each path's name, size and modification time (missing files count as
    missing), with `salt` (the table's format, the tree's root)."""
    digest = hashlib.sha256(salt.encode())
    for path in paths:
        try:
            stat = path.stat()
            digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        except OSError:
            digest.update(f"{path}\0missing\n".encode())
    return digest.hexdigest()[:20]


def cached_table(name: str, key: str, compute: Callable[[], Any],
                 root: Path | None = None) -> Any:
    """The JSON table `name` for content `key`: read from disk, else computed and kept."""
    found = read_table(name, key, root)
    if found is not None:
        return found
    table = compute()
    keep_table(name, key, table, root)
    return table


def file_memo(name: str, path: Path, compute: Callable[[], Any], salt: str = "") -> Any:
    """compute() of one file, kept by the file's stat as cached_table keeps tables. A file
    modified in the last RACY_S seconds is computed and not kept: a second write within the
    same clock tick could leave its size and modification time as they were (git's "racy"
    entries), so only a file whose stat has settled is trusted by it."""
    try:
        modified = path.stat().st_mtime
    except OSError:
        return compute()
    key = stat_digest([path], salt)
    found = read_table(name, key)
    if found is not None:
        return found
    value = compute()
    if time.time() - modified > RACY_S:
        keep_table(name, key, value)
    return value


def _entry(name: str, key: str, root: Path | None) -> Path:
    return (root or derived_root()) / f"{name}-{key}.json"


def read_table(name: str, key: str, root: Path | None = None) -> Any:
    """The kept table `name` for content `key`, or None when there is none (or unreadable)."""
    try:
        return json.loads(_entry(name, key, root).read_text())["table"]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def keep_table(name: str, key: str, table: Any, root: Path | None = None,
               keep_order: bool = False) -> None:
    """Keep `table` for content `key` (a cache that cannot be written only costs time);
    `keep_order`: its mappings keep their key order (a parsed file's order is data)."""
    try:
        write_json_atomic(_entry(name, key, root), {"name": name, "key": key, "table": table},
                          indent=0, sort_keys=not keep_order)
    except (OSError, OrchestratorError):
        pass
