"""Atomic JSON, text and binary files: written beside the target, then renamed over it (never
half-written)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from orchestrator.foundation.file_faults import writing


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_json_atomic(path: Path, document: Any, indent: int = 2, sort_keys: bool = True) -> None:
    """Write `document` as JSON (stable key order, or the document's own with sort_keys
    False) to `path` via a temp file + rename."""
    write_text_atomic(path, json.dumps(document, indent=indent, sort_keys=sort_keys) + "\n")


def write_text_atomic(path: Path, text: str) -> None:
    """Write `text` (UTF-8) to `path` via a temp file + rename (write_bytes_atomic)."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` via a temp file + rename.

    The file gets the usual permissions (0666 minus the umask), not mkstemp's 0600, so
    reports and lock files stay readable by CI artifact uploaders and other users.
    (tempfile is imported here: a warm run reads kept tables and starts its simulator
    before it writes anything.)
    """
    import tempfile

    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    try:
        with writing(path), os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
