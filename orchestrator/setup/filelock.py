"""Advisory file locks (fcntl): serialise setups sharing one scratch/ or one download cache."""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orchestrator.foundation.file_faults import writing


@contextmanager
def exclusive_lock(path: Path, waiting_message: str | None = None) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if needed); say so once if we must wait."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if waiting_message:
                print(waiting_message, file=sys.stderr)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)
