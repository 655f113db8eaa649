"""Safe archive extraction: refuse absolute paths, `..`, links that escape, special files."""

from __future__ import annotations

import lzma
import os
import tarfile
import zlib
from pathlib import Path, PurePosixPath
from typing import Literal

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import DEVICE_FAULTS

StreamMode = Literal["r|xz", "r|gz", "r|"]
MODES: dict[str, StreamMode] = {"tar.xz": "r|xz", "tgz": "r|gz", "tar.gz": "r|gz", "tar": "r|"}
HAS_FILTERS = hasattr(tarfile, "tar_filter")


class UnsafeArchive(OrchestratorError):
    """An archive member would land outside the install directory."""


def _inside(root: str, path: str) -> bool:
    """True when `path` (already real) is `root` or below it."""
    return path == root or path.startswith(root + os.sep)


def _check_name(name: str, archive: Path, hint: str) -> None:
    """Refuse absolute member names and any `..` component."""
    pure = PurePosixPath(name)
    if pure.is_absolute() or ".." in pure.parts or name.startswith(("/", "\\")):
        raise UnsafeArchive(f"{archive.name} has an unsafe member path {name!r}; nothing was "
                            "installed", hint)


def _check_member(member: tarfile.TarInfo, root: str, archive: Path, hint: str,
                  parents: dict[str, str]) -> None:
    """Validate one member against the real (symlink-resolved) destination tree.

    `parents` caches resolved directories; any new symlink may change them, so it is reset.
    """
    _check_name(member.name, archive, hint)
    folder = os.path.dirname(member.name)
    if folder not in parents:
        parents[folder] = os.path.realpath(os.path.join(root, folder))
    parent = parents[folder]
    if not _inside(root, parent):
        raise UnsafeArchive(f"{archive.name} writes {member.name!r} through a link that leaves "
                            "the install directory; nothing was installed", hint)
    if member.issym():
        parents.clear()
        target = os.path.normpath(os.path.join(parent, member.linkname))
        if os.path.isabs(member.linkname) or not _inside(root, os.path.realpath(target)):
            raise UnsafeArchive(f"{archive.name} has a link {member.name!r} -> "
                                f"{member.linkname!r} that escapes; nothing was installed", hint)
    elif member.islnk():
        _check_name(member.linkname, archive, hint)
    elif not (member.isfile() or member.isdir()):
        raise UnsafeArchive(f"{archive.name} has a special file {member.name!r}; nothing was "
                            "installed", hint)


def safe_extract(archive: Path, kind: str, dest: Path, hint: str) -> None:
    """Stream-extract `archive` into the (new, empty) directory `dest`, member by member."""
    dest.mkdir(parents=True, exist_ok=True)
    root = os.path.realpath(dest)
    parents: dict[str, str] = {}
    try:
        with tarfile.open(archive, MODES[kind]) as tar:
            for member in tar:
                _check_member(member, root, archive, hint, parents)
                if HAS_FILTERS:
                    tar.extract(member, root, filter="tar")
                else:  # pragma: no cover - Python without extraction filters
                    tar.extract(member, root)
    except (tarfile.TarError, EOFError, OSError, lzma.LZMAError, zlib.error) as error:
        if isinstance(error, OSError) and error.errno in DEVICE_FAULTS:
            raise   # the disk, not the archive: the install names its directory
        raise OrchestratorError(f"{archive.name} could not be unpacked ({error}); nothing was "
                                "installed", hint) from None
