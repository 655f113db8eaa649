"""The NPU model library is kept in the user-level cache by the digest of what builds
it: a second scratch loads the first one's build (no CMake in it at all), and any change of a
source file, a build option or the sdist is another key. The build is real (CMake, ninja)."""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pytest

from orchestrator.foundation.paths import USER_CACHE_ENV, repo_root
from orchestrator.npu_model import hostlib
from orchestrator.npu_model.hostlib_cache import library_key

OPTIONS = ["-DCMAKE_BUILD_TYPE=Release", "-DNPU_MODEL_SHARED=ON"]


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_a_second_scratch_loads_the_first_ones_build(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path / "cache"))
    first = hostlib.build_library(tmp_path / "one")
    assert first.parent.parent == tmp_path / "cache" / "npu_model"
    assert (tmp_path / "one").is_dir()                   # built there, once
    again = hostlib.build_library(tmp_path / "two")
    assert again == first and not (tmp_path / "two").exists()
    assert ctypes.CDLL(str(again)).npu_model_invoke is not None


def test_the_key_covers_sources_options_and_the_sdist(tmp_path: Path) -> None:
    source = tmp_path / "npu_model"
    shutil.copytree(repo_root() / "firmware" / "npu_model", source)
    key = library_key(source, OPTIONS, "a" * 64)
    assert library_key(source, OPTIONS, "a" * 64) == key
    assert library_key(source, [*OPTIONS, "-DNPU_MODEL_PROBE=ON"], "a" * 64) != key
    assert library_key(source, OPTIONS, "b" * 64) != key
    header = source / "include" / "npu_model.h"
    header.write_text(header.read_text() + "\n")
    assert library_key(source, OPTIONS, "a" * 64) != key
