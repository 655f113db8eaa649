"""The runtime build's recipe: its CMake project (firmware/apps/runner/runtime), the toolchain
file and the compiler, as the key of a build directory shared by every scratch and clone.

With a user-level cache the project and toolchain file are configured from content-addressed
copies in that cache, so every clone names the same files: a fresh clone or scratch finds the
build configured and built by its arguments, instead of configuring again (an absolute path of
the checkout in a configure argument would otherwise differ per clone)."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from orchestrator.firmware.build.toolchain import TOOLCHAIN_FILE
from orchestrator.foundation.derived_cache import file_memo
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.paths import repo_root

RUNTIME_PROJECT = repo_root() / "firmware" / "apps" / "runner" / "runtime"
PROJECT_FILE = "CMakeLists.txt"
TOOLCHAIN_NAME = "arm-none-eabi-gcc.cmake"
RECIPES = "recipes"


@dataclass(frozen=True)
class Recipe:
    """Where configure reads the runtime project and the toolchain file from, and their digest."""

    project: Path
    toolchain_file: Path
    digest: str


def recipe_digest() -> str:
    """Digest of the project and toolchain files' contents."""
    hasher = hashlib.sha256()
    for path in (RUNTIME_PROJECT / PROJECT_FILE, TOOLCHAIN_FILE):
        hasher.update(path.read_bytes())
    return hasher.hexdigest()[:16]


def compiler_identity(gcc: Path) -> str:
    """Digest of the compiler driver binary: a compiler upgraded in place is another build
    (hashed once per file state: foundation.derived_cache.file_memo)."""
    binary = gcc.resolve()
    identity: str = file_memo(COMPILER_TABLE, binary,
                              lambda: hashlib.sha256(binary.read_bytes()).hexdigest()[:16])
    return identity


COMPILER_TABLE = "compiler-identity-1"


def staged_recipe(cache: Path | None) -> Recipe:
    """The checkout's own files (no user cache), or their copies under <cache>/recipes/<digest>
    (written once, atomically: a rename of a complete directory)."""
    digest = recipe_digest()
    if cache is None:
        return Recipe(RUNTIME_PROJECT, TOOLCHAIN_FILE, digest)
    target = cache / RECIPES / digest
    if not (target / PROJECT_FILE).is_file():
        with writing(target.parent):
            target.parent.mkdir(parents=True, exist_ok=True)
            staged = Path(tempfile.mkdtemp(prefix=f".tmp-{digest}-", dir=target.parent))
            shutil.copyfile(RUNTIME_PROJECT / PROJECT_FILE, staged / PROJECT_FILE)
            shutil.copyfile(TOOLCHAIN_FILE, staged / TOOLCHAIN_NAME)
            try:
                os.rename(staged, target)
            except OSError:   # another process staged the same content first
                shutil.rmtree(staged, ignore_errors=True)
    return Recipe(target, target / TOOLCHAIN_NAME, digest)
