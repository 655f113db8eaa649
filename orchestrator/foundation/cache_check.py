"""Every cache entry verifies itself on use: when it is published, the sha256, size and
mtime of each of its files are recorded in the entry (RECORD, written last before the
entry is renamed into place); a use checks them, and a damaged entry is named in one line
and set aside, never served.

The check on use is a stat per file (size and mtime in nanoseconds against the record) and a
sha256 only of a file whose stat changed: a write through the filesystem (a flipped byte,
a truncation, a half-copied replacement) always moves the mtime, so the warm path costs
microseconds per file, not a read of every megabyte (issue 44's warm path stays fast).
Damage that keeps the mtime (bit rot, a deliberate `touch -r`) is found by the full scan,
`invoke products --verify`, which hashes every file. Nothing here imports torch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

RECORD = ".files.sha256.json"
RECORD_SCHEMA = 1
DAMAGED_PREFIX = ".damaged-"
_CHUNK = 1 << 20
_NOT_RECORDED = (RECORD, ".lease")     # the record itself; a lease is touched on every use


def sha256_of(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def _files(directory: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(directory):
        dirs.sort()
        found += [Path(root, name) for name in sorted(files) if name not in _NOT_RECORDED]
    return found


def _entry(path: Path) -> dict[str, Any]:
    info = path.stat()
    return {"sha256": sha256_of(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns}


def record_files(directory: Path, paths: list[Path] | None = None
                 ) -> dict[str, dict[str, Any]]:
    """Record every file below `directory` (call it last, before publishing the entry), or
    only `paths` (a build's outputs; one whose stat is unchanged keeps its recorded sha256)."""
    old = (_recorded(directory) or {}) if paths is not None else {}
    files = {}
    for path in _files(directory) if paths is None else sorted(paths):
        name = path.relative_to(directory).as_posix()
        info = path.stat()
        kept = old.get(name)
        files[name] = kept if kept is not None and (kept.get("size"), kept.get("mtime_ns")) \
            == (info.st_size, info.st_mtime_ns) else _entry(path)
    staged = directory / f"{RECORD}.tmp"
    staged.write_text(json.dumps({"schema": RECORD_SCHEMA, "files": files}, indent=1,
                                 sort_keys=True) + "\n")
    os.replace(staged, directory / RECORD)
    return files


def has_record(directory: Path) -> bool:
    """True when the directory holds a record of its files."""
    return (directory / RECORD).is_file()


def _recorded(directory: Path) -> dict[str, dict[str, Any]] | None:
    try:
        document = json.loads((directory / RECORD).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if not isinstance(document, dict) or document.get("schema") != RECORD_SCHEMA:
        return None
    files = document.get("files")
    return files if isinstance(files, dict) else None


@dataclass(frozen=True)
class Damage:
    """What is wrong with an entry: the files that differ from its record, or no record."""

    directory: Path
    files: tuple[str, ...] = ()
    unrecorded: bool = False

    def describe(self, action: str) -> str:
        """'scratch/models/<key>/model.pte differs from its manifest: rebuilt'."""
        where = _shown(self.directory)
        if self.unrecorded:
            return f"{where} records no digests of its files: {action}"
        more = f" (and {len(self.files) - 1} more)" if len(self.files) > 1 else ""
        return f"{where}/{self.files[0]}{more} differs from its manifest: {action}"


def _shown(directory: Path) -> str:
    """The entry as 'scratch/models/<key>' (its path from the scratch root's parent)."""
    parts = directory.parts
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] == "scratch":
            return "/".join(parts[index:])
    return str(directory)


def _differs(path: Path, recorded: dict[str, Any], full: bool) -> bool:
    try:
        info = path.stat()
    except OSError:
        return True
    if info.st_size != recorded.get("size"):
        return True
    if not full and info.st_mtime_ns == recorded.get("mtime_ns"):
        return False
    try:
        return sha256_of(path) != recorded.get("sha256")
    except OSError:
        return True


def damage(directory: Path, full: bool = False) -> Damage | None:
    """None when every recorded file of the entry is as recorded; `full` hashes every file
    (the scan), else only those whose size or mtime moved (a use)."""
    recorded = _recorded(directory)
    if recorded is None:
        return Damage(directory, unrecorded=True)
    differing = tuple(name for name, entry in sorted(recorded.items())
                      if _differs(directory / name, entry, full))
    return Damage(directory, differing) if differing else None


def set_aside(directory: Path) -> None:
    """Take a damaged entry out of the cache (renamed away atomically, then removed): the
    next use rebuilds it. Another process setting it aside first is fine."""
    trash = directory.with_name(f"{DAMAGED_PREFIX}{directory.name}-{os.getpid()}")
    try:
        os.rename(directory, trash)
    except FileNotFoundError:
        return
    shutil.rmtree(trash, ignore_errors=True)


def remove_damaged_outputs(directory: Path) -> list[str]:
    """A build directory's recorded outputs that differ, each named in one line and removed
    (the incremental build then makes it again); [] when sound or never recorded."""
    damaged = _present_damage(directory, full=False)
    for name in damaged:
        print(Damage(directory, (name,)).describe("rebuilt"), file=sys.stderr)
        (directory / name).unlink(missing_ok=True)
    return damaged


def _present_damage(directory: Path, full: bool) -> list[str]:
    """A build directory's recorded outputs that exist and differ (a missing one is made
    again by the next build)."""
    found = damage(directory, full)
    if found is None or found.unrecorded:
        return []
    return [name for name in found.files if (directory / name).exists()]


def scan(entries: list[Path], builds: list[Path]) -> list[str]:
    """The full check (`invoke products --verify`): every file of each entry and each build
    hashed; a damaged entry set aside, a build's damaged outputs removed; one line each."""
    lines = []
    for directory in entries:
        found = damage(directory, full=True)
        if found is not None:
            lines.append(found.describe("set aside (rebuilt on next use)"))
            set_aside(directory)
    for directory in builds:
        for name in _present_damage(directory, full=True):
            lines.append(Damage(directory, (name,)).describe("removed (rebuilt on next build)"))
            (directory / name).unlink(missing_ok=True)
    return lines


def checked(directory: Path, action: str = "rebuilt") -> bool:
    """True when the entry is sound; else one line on stderr naming the damage, the entry
    set aside, False (the caller rebuilds it)."""
    found = damage(directory)
    if found is None:
        return True
    print(found.describe(action), file=sys.stderr)
    set_aside(directory)
    return False
