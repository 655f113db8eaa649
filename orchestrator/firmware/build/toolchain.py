"""How every Cortex-M build is compiled (toolchains/arm-none-eabi-gcc.cmake): the CMake
definitions and the environment both the firmware project and the ExecuTorch runtime build
with. Prefix maps make the ELF independent of where the checkout, scratch and sources are;
ccache (when present) serves repeated compiles, upstream's host ExternalProjects included."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.paths import repo_root

TOOLCHAIN_FILE = repo_root() / "toolchains" / "arm-none-eabi-gcc.cmake"
CCACHE_ENV = "ETHOSU_ORCH_CCACHE"   # "0" switches ccache off; a path picks the binary
KEPT_ENV = ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL", "CCACHE_DIR", "XDG_CACHE_HOME")
CHECKOUT_NAME = "eor"
SCRATCH_NAME = "scratch"
BUILD_NAME = "build"


@dataclass(frozen=True)
class Compilers:
    """Absolute compiler paths (from the setup lock) and the -mcpu GCC gets."""

    gcc: Path
    gxx: Path
    cpu: str
    float_abi: str = "hard"   # soft on cores without an FPU (targets.toml cpus.*)


def compiler_launcher() -> Path | None:
    """ccache when installed (or named by $ETHOSU_ORCH_CCACHE), None when off or missing."""
    chosen = os.environ.get(CCACHE_ENV, "")
    if chosen == "0":
        return None
    found = shutil.which(chosen or "ccache")
    return Path(found) if found else None


def prefix_maps(scratch_root: Path, build_dir: Path, trees: Mapping[str, Path] | None = None,
                checkout: bool = True) -> list[str]:
    """OLD=NEW pairs, shortest OLD first (GCC applies the last match: the most specific).
    `checkout=False` for builds that compile nothing of the checkout (the runtime), so their
    flags, and their objects, are the same from every checkout."""
    named = {scratch_root: SCRATCH_NAME, build_dir: BUILD_NAME}
    if checkout:
        named[repo_root()] = CHECKOUT_NAME
    named.update({Path(path): name for name, path in (trees or {}).items()})
    ordered = sorted(named.items(), key=lambda item: (len(str(item[0])), str(item[0])))
    return [f"{Path(old).resolve()}={new}" for old, new in ordered]


def toolchain_definitions(compilers: Compilers, maps: list[str], launcher: Path | None,
                          toolchain_file: Path = TOOLCHAIN_FILE) -> dict[str, str]:
    """-D definitions that select the toolchain file (the checkout's, or a copy of it) and
    feed it."""
    definitions = {"CMAKE_TOOLCHAIN_FILE": str(toolchain_file),
                   "EOR_GCC": str(compilers.gcc), "EOR_GXX": str(compilers.gxx),
                   "EOR_CPU": compilers.cpu, "EOR_PREFIX_MAPS": ";".join(maps),
                   "EOR_COMPILER_LAUNCHER": str(launcher or "")}
    if compilers.float_abi != "hard":   # the toolchain file's default: hard-float builds
        definitions["EOR_FLOAT_ABI"] = compilers.float_abi   # keep the arguments they had
    return definitions


def build_environment(launcher: Path | None, jobs: int = 2) -> dict[str, str]:
    """A plain environment for configure and build; the launcher also reaches upstream's
    host ExternalProjects (flatc, flatcc) through CMake's launcher environment variables,
    and their `cmake --build` runs `jobs` compiles at once (it defaults to one)."""
    env = {key: value for key, value in os.environ.items() if key in KEPT_ENV}
    env["CMAKE_BUILD_PARALLEL_LEVEL"] = str(jobs)
    if launcher is not None:
        env.update({"CMAKE_C_COMPILER_LAUNCHER": str(launcher),
                    "CMAKE_CXX_COMPILER_LAUNCHER": str(launcher),
                    # debug info carries mapped paths, so the directory need not be hashed
                    "CCACHE_NOHASHDIR": "1"})
    return env
