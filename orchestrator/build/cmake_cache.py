"""A relocated build tree: a scratch copied or moved elsewhere (`cp -a scratch B`, then
ETHOSU_ORCH_SCRATCH=B) keeps CMakeCache.txt files naming the old directory, which CMake
refuses to reuse. Such a cache is dropped so the next configure starts fresh in place."""

from __future__ import annotations

import shutil
from pathlib import Path

CACHE = "CMakeCache.txt"
CACHE_DIR_KEY = "CMAKE_CACHEFILE_DIR:INTERNAL="


def recorded_dir(cache: Path) -> Path | None:
    """The build directory a CMakeCache.txt was made in (None when it does not say)."""
    for line in cache.read_text(errors="replace").splitlines():
        if line.startswith(CACHE_DIR_KEY):
            return Path(line[len(CACHE_DIR_KEY):].strip())
    return None


def forget_moved_cache(build_dir: Path) -> bool:
    """Drop CMakeCache.txt and CMakeFiles/ when they were made in another directory; True
    when it did (the caller then configures again)."""
    cache = build_dir / CACHE
    if not cache.is_file():
        return False
    made_in = recorded_dir(cache)
    if made_in is None or made_in.resolve() == build_dir.resolve():
        return False
    cache.unlink()
    shutil.rmtree(build_dir / "CMakeFiles", ignore_errors=True)
    return True
