"""Environment faults while writing (read-only file system, no permission, a full disk, a
file where a directory should be) as one sentence naming the path and the fix."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError

MOVE_SCRATCH = "point ETHOSU_ORCH_SCRATCH at a writable directory with free space"
CAUSES = {
    errno.EROFS: ("is on a read-only file system", MOVE_SCRATCH),
    errno.EACCES: ("is not writable (permission denied)",
                   f"fix its permissions, or {MOVE_SCRATCH}"),
    errno.EPERM: ("is not writable (operation not permitted)",
                  f"fix its permissions, or {MOVE_SCRATCH}"),
    errno.ENOSPC: ("cannot be written: no space left on the device",
                   "free space (e.g. delete scratch/build or old scratch/runs), or "
                   f"{MOVE_SCRATCH}"),
    errno.EDQUOT: ("cannot be written: the disk quota is exhausted",
                   f"free space, or {MOVE_SCRATCH}"),
    errno.ENOTDIR: ("cannot be created: a file stands where a directory should be",
                    f"remove that file, or {MOVE_SCRATCH}"),
    errno.EEXIST: ("cannot be created: a file stands where a directory should be",
                   f"remove that file, or {MOVE_SCRATCH}"),
}


def write_error(path: Path, error: OSError) -> OrchestratorError:
    """The one-line error for `error` raised while writing `path`."""
    cause, fix = CAUSES.get(error.errno or 0, (f"cannot be written ({error.strerror})",
                                               MOVE_SCRATCH))
    return OrchestratorError(f"{path} {cause}", fix)


DEVICE_FAULTS = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT})


@contextmanager
def filling(path: Path) -> Iterator[None]:
    """Like `writing`, for a block that also reads (archives, git, the network, compilers):
    only faults of the device being written (read-only, full, over quota) become the one-line
    error naming `path`; any other OSError passes through unchanged."""
    try:
        yield
    except OSError as error:
        if error.errno not in DEVICE_FAULTS:
            raise
        raise write_error(path, error) from None


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn an OSError inside the block into the one-line error naming `path`."""
    try:
        yield
    except OSError as error:
        if isinstance(error, BlockingIOError | InterruptedError):
            raise
        raise write_error(path, error) from None
