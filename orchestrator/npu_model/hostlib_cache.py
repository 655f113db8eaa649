"""The host build of the NPU model (a shared library) kept in the user-level cache
(paths.user_cache, `npu_model/<key>/`), keyed by everything that makes it: the model's sources
(firmware/npu_model), the table generator and the pinned Vela it reads (the installed
wheel's version, the sdist's digest), the Python that runs the generator, the host C compiler
binary and the build options. A fresh scratch or clone with the same inputs loads the library
another one built instead of building it again; the scratch build stays the one place it is
built."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from importlib.metadata import version
from pathlib import Path

from orchestrator.foundation.cache_check import checked, record_files
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.hosttools import python_interpreter
from orchestrator.foundation.paths import repo_root, user_cache

CACHE_DIR = "npu_model"
RECIPE = 1   # bump when the way the library is built changes outside the hashed inputs
GENERATOR = ("orchestrator/npu_model/gen_regs.py", "orchestrator/npu_model/regor_source.py")


def _tree_digest(hasher: hashlib._Hash, root: Path) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        hasher.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())


def host_compiler() -> Path | None:
    """The C compiler CMake picks for the host ($CC, else cc), resolved."""
    found = shutil.which(os.environ.get("CC") or "cc")
    return Path(found).resolve() if found else None


def library_key(source: Path, options: list[str], sdist_sha256: str) -> str:
    """Digest of every input of the host library build."""
    hasher = hashlib.sha256()
    _tree_digest(hasher, source)
    for name in GENERATOR:
        hasher.update((repo_root() / name).read_bytes())
    compiler = host_compiler()
    hasher.update(compiler.read_bytes() if compiler else b"no cc")
    interpreter = python_interpreter()
    for part in (*options, sdist_sha256, version("ethos-u-vela"), interpreter, str(RECIPE)):
        hasher.update(part.encode() + b"\0")
    return hasher.hexdigest()[:20]


def cached_library(key: str, name: str) -> Path | None:
    """The library another scratch or clone built with the same inputs (None: none, no user
    cache, or one that differs from its recorded digest: named, set aside, built again)."""
    cache = user_cache()
    found = cache / CACHE_DIR / key / name if cache is not None else None
    return found if found is not None and found.is_file() and checked(found.parent) else None


def keep_library(built: Path, key: str) -> Path:
    """Copy a fresh build into the user cache (atomically: a complete directory renamed in)
    and return the path to load; the scratch build when there is no user cache."""
    cache = user_cache()
    if cache is None:
        return built
    target = cache / CACHE_DIR / key
    with writing(target.parent):
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = Path(tempfile.mkdtemp(prefix=f".tmp-{key}-", dir=target.parent))
        shutil.copy2(built, staged / built.name)
        record_files(staged)
        try:
            os.rename(staged, target)
        except OSError:   # another process kept the same build first
            shutil.rmtree(staged, ignore_errors=True)
    return target / built.name
