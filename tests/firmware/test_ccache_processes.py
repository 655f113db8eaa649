"""ccache, the user-level compiler cache every Cortex-M build goes through, filled by two
real processes at once and by one killed in the middle: each process configures and builds a
small C library with arm-none-eabi-gcc through the tool's own launcher path (the toolchain
file, its definitions, prefix maps and build environment from
orchestrator.firmware.build.toolchain), in a build directory of its own, into one cache.
Every build must succeed and give, byte for byte, the objects one build alone gives."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

GCC = shutil.which("arm-none-eabi-gcc")
pytestmark = [
    pytest.mark.skipif(GCC is None, reason="needs arm-none-eabi-gcc (Debian gcc-arm-none-eabi)"),
    pytest.mark.skipif(shutil.which("ccache") is None, reason="needs ccache (Debian ccache)"),
    pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake"),
]

FILES = 24   # enough compiles for two builds to overlap, and for a kill to land mid-build

BUILDER = """
import subprocess, sys
from pathlib import Path
from orchestrator.firmware.build.toolchain import (
    Compilers, build_environment, compiler_launcher, prefix_maps, toolchain_definitions)

source, build = Path(sys.argv[1]), Path(sys.argv[2])
gcc = Path(sys.argv[3])
launcher = compiler_launcher()
maps = prefix_maps(build.parent, build, {"src": source}, checkout=False)
definitions = toolchain_definitions(
    Compilers(gcc, gcc.with_name("arm-none-eabi-g++"), "cortex-m55"), maps, launcher)
env = build_environment(launcher, jobs=1)
configure = ["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja",
             *[f"-D{key}={value}" for key, value in definitions.items()]]
subprocess.run(configure, env=env, check=True, stdout=subprocess.DEVNULL)
print("launcher", launcher, flush=True)
subprocess.run(["cmake", "--build", str(build)], env=env, check=True, stdout=subprocess.DEVNULL)
"""

CMAKELISTS = """cmake_minimum_required(VERSION 3.20)
project(cached C)
file(GLOB units ${CMAKE_SOURCE_DIR}/unit_*.c)
add_library(cached STATIC ${units})
"""

UNIT = """#include <stdint.h>
#define N {n}
static int32_t table_{n}[64];
int32_t unit_{n}(const int8_t *in, int32_t count) {{
    int32_t acc = N;
    for (int32_t i = 0; i < count; ++i) {{
        table_{n}[i & 63] += in[i] * (i + N);
        acc += table_{n}[(i * 7) & 63] >> (i & 3);
    }}
    return acc;
}}
"""


def _project(root: Path) -> Path:
    """The C project every build compiles (written once)."""
    if root.exists():
        return root
    root.mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(CMAKELISTS)
    for n in range(FILES):
        (root / f"unit_{n}.c").write_text(UNIT.format(n=n))
    return root


def _start(tmp_path: Path, name: str, cache_name: str = "ccache") -> subprocess.Popen[str]:
    """One build in a process (and process group) of its own, in tmp_path/name/build, into
    tmp_path/<cache_name>. The cache's base_dir is tmp_path, so the builds' paths, relative, are
    one key: the two processes fill the same entries at once."""
    folder = tmp_path / name
    source = _project(tmp_path / "src")
    cache = tmp_path / cache_name
    cache.mkdir(exist_ok=True)
    (cache / "ccache.conf").write_text(f"base_dir = {tmp_path}\n")
    env = {**os.environ, "CCACHE_DIR": str(cache)}
    env.pop("ETHOSU_ORCH_CCACHE", None)   # the launcher as users get it: ccache from PATH
    return subprocess.Popen([sys.executable, "-c", BUILDER, str(source), str(folder / "build"),
                             str(GCC)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _finished(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err[-2000:]
    return out


def _objects(tmp_path: Path, name: str) -> dict[str, bytes]:
    found = sorted((tmp_path / name / "build").rglob("unit_*.c.obj"))
    assert len(found) == FILES
    return {path.name: path.read_bytes() for path in found}


def _reference(tmp_path: Path) -> dict[str, bytes]:
    """The objects of one build alone, into a cache of its own."""
    _finished(_start(tmp_path, "alone", "alone-ccache"))
    return _objects(tmp_path, "alone")


def _cache_stats(tmp_path: Path) -> str:
    shown = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True,
                           env={**os.environ, "CCACHE_DIR": str(tmp_path / "ccache")})
    return shown.stdout


def _stat(stats: str, name: str) -> int:
    return sum(int(line.split()[1]) for line in stats.splitlines()
               if line.split() and line.split()[0] == name)


def test_two_processes_fill_one_ccache_at_once_and_get_identical_objects(tmp_path):
    reference = _reference(tmp_path)
    first, second = _start(tmp_path, "a"), _start(tmp_path, "b")
    outs = [_finished(process) for process in (first, second)]
    assert all("ccache" in out for out in outs), outs   # the launcher was in use
    assert _objects(tmp_path, "a") == reference
    assert _objects(tmp_path, "b") == reference
    # what they stored together is sound: a third build is served from it, same bytes
    before = _cache_stats(tmp_path)
    _finished(_start(tmp_path, "c"))
    assert _objects(tmp_path, "c") == reference
    after = _cache_stats(tmp_path)
    assert _stat(after, "cache_miss") == _stat(before, "cache_miss")
    assert _stat(after, "direct_cache_hit") - _stat(before, "direct_cache_hit") >= FILES


def test_a_build_killed_mid_fill_leaves_a_cache_that_serves_correct_objects(tmp_path):
    reference = _reference(tmp_path)
    victim = _start(tmp_path, "killed")
    objects = tmp_path / "killed" / "build"
    deadline = time.monotonic() + 300
    while len(list(objects.rglob("unit_*.c.obj"))) < 3 and time.monotonic() < deadline:
        assert victim.poll() is None, victim.communicate()[1][-2000:]
        time.sleep(0.05)
    os.killpg(victim.pid, signal.SIGKILL)   # the builder, cmake, ninja, ccache and gcc at once
    victim.communicate(timeout=60)
    assert len(list(objects.rglob("unit_*.c.obj"))) < FILES, "the build ended before the kill"
    _finished(_start(tmp_path, "after"))
    assert _objects(tmp_path, "after") == reference

