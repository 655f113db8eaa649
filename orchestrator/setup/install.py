"""Atomic installs into scratch/: stage beside the target, rename into place, recover leftovers.

An interrupted setup leaves either the previous install or nothing under the target name:
staging directories (.tmp-*) and displaced old trees (.old-*) are cleaned up, or the old tree
is put back, by the next setup while it holds the scratch-wide install lock.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.paths import Scratch
from orchestrator.setup.filelock import exclusive_lock

MARKER = ".orchestrator-install.json"
STAGING_PREFIX = ".tmp-"
OLD_PREFIX = ".old-"


@contextmanager
def install_lock(scratch: Scratch) -> Iterator[None]:
    """Serialise setups on one scratch/; tidy what an interrupted setup left behind."""
    message = f"setup: another `invoke setup` is installing into {scratch.root}; waiting for it"
    with exclusive_lock(scratch.root / ".setup.lock", message):
        for parent in (scratch.tools, scratch.src):
            recover(parent)
        yield


def recover(parent: Path) -> None:
    """Delete stale staging trees; put back an old tree whose replacement never landed."""
    if not parent.is_dir():
        return
    for leftover in sorted(parent.iterdir()):
        name = leftover.name
        if name.startswith(OLD_PREFIX):
            original = parent / name[len(OLD_PREFIX):].rsplit("-", 1)[0]
            if original.exists():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.rename(original)
        elif name.startswith(STAGING_PREFIX):
            shutil.rmtree(leftover, ignore_errors=True)


def staging_dir(target: Path) -> Path:
    """A new empty directory beside `target` on the same filesystem (so rename is atomic)."""
    with writing(target.parent):
        target.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{target.name}-",
                                     dir=target.parent))


def commit_install(staged: Path, target: Path, entry: dict[str, Any]) -> None:
    """Write the marker into `staged`, then swap it in for `target` (old tree removed last)."""
    (staged / MARKER).write_text(json.dumps(entry, indent=2, sort_keys=True) + "\n")
    old = None
    if target.exists():
        old = target.with_name(f"{OLD_PREFIX}{target.name}-{os.getpid()}")
        target.rename(old)
    staged.rename(target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def discard(staged: Path) -> None:
    """Remove a staging tree after a failure."""
    shutil.rmtree(staged, ignore_errors=True)


def read_marker(target: Path) -> dict[str, Any] | None:
    """The entry an install wrote into its own tree (None when absent or unreadable)."""
    try:
        marker: dict[str, Any] = json.loads((target / MARKER).read_text())
        return marker
    except (OSError, ValueError):
        return None
