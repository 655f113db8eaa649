"""A copied or moved scratch builds again with no manual step: the build trees' CMake caches
name the old directory, so they are dropped and configured afresh in place."""

from __future__ import annotations

import shutil

import pytest

from orchestrator.firmware.build import build_firmware, config_for_target
from orchestrator.firmware.build.driver import build_dir_for
from orchestrator.foundation.cmake_cache import forget_moved_cache, recorded_dir
from orchestrator.foundation.paths import scratch

pytestmark = pytest.mark.slow


def test_a_copied_scratch_reconfigures_and_builds(builds, tmp_path):
    first = builds.get("cortex-m55")
    moved = tmp_path / "moved"
    shutil.copytree(builds.work.root, moved, symlinks=True)
    config = config_for_target("cortex-m55", app="selftest")
    copied_cache = build_dir_for(scratch(moved), config) / "CMakeCache.txt"
    assert recorded_dir(copied_cache) == first.build_dir
    again = build_firmware(scratch(moved), config)
    assert again.configured and again.elf.is_file()
    assert again.elf.is_relative_to(moved) and again.build_id == first.build_id
    assert recorded_dir(copied_cache) == again.build_dir
    assert build_firmware(scratch(moved), config).configured is False


def test_only_a_cache_from_elsewhere_is_dropped(tmp_path):
    here = tmp_path / "build"
    (here / "CMakeFiles").mkdir(parents=True)
    cache = here / "CMakeCache.txt"
    cache.write_text(f"CMAKE_CACHEFILE_DIR:INTERNAL={here}\n")
    assert forget_moved_cache(here) is False and cache.is_file()
    cache.write_text("CMAKE_CACHEFILE_DIR:INTERNAL=/somewhere/else\n")
    assert forget_moved_cache(here) is True
    assert not cache.exists() and not (here / "CMakeFiles").exists()
    assert forget_moved_cache(here) is False
