"""A relocated build tree: a scratch copied or moved elsewhere (`cp -a scratch B`, then
ETHOSU_ORCH_SCRATCH=B) keeps CMakeCache.txt files naming the old directory, which CMake
refuses to reuse; so does a build directory configured from another checkout's sources (a
scratch shared by clones). Such a cache is dropped so the next configure starts fresh in place
(the objects stay: with prefix maps nothing compiles differently)."""

from __future__ import annotations

import shutil
from pathlib import Path

CACHE = "CMakeCache.txt"
CACHE_DIR_KEY = "CMAKE_CACHEFILE_DIR:INTERNAL="
SOURCE_DIR_KEY = "CMAKE_HOME_DIRECTORY:INTERNAL="


def recorded_path(cache: Path, key: str) -> Path | None:
    """The path a CMakeCache.txt records under `key` (None when it does not say)."""
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith(key):
            return Path(line[len(key):].strip())
    return None


def recorded_dir(cache: Path) -> Path | None:
    """The build directory a CMakeCache.txt was made in (None when it does not say)."""
    return recorded_path(cache, CACHE_DIR_KEY)


def _elsewhere(recorded: Path | None, here: Path) -> bool:
    return recorded is not None and recorded.resolve() != here.resolve()


def forget_moved_cache(build_dir: Path, source: Path | None = None) -> bool:
    """Drop CMakeCache.txt and CMakeFiles/ when they were made in another directory or (given
    `source`) configured from other sources; True when it did (the caller configures again)."""
    cache = build_dir / CACHE
    if not cache.is_file():
        return False
    moved = _elsewhere(recorded_dir(cache), build_dir)
    foreign = source is not None and _elsewhere(recorded_path(cache, SOURCE_DIR_KEY), source)
    if not (moved or foreign):
        return False
    cache.unlink()
    shutil.rmtree(build_dir / "CMakeFiles", ignore_errors=True)
    return True
