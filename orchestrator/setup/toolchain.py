"""Toolchain providers: the pinned Arm GNU Toolchain download or a system arm-none-eabi-gcc."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.setup.lock import write_lock_entry

ARTIFACT = "toolchain"
PREFIX = "arm-none-eabi-"
BINARIES = ("gcc", "g++", "objcopy", "size", "nm", "ar", "as", "ld", "objdump", "readelf",
            "ranlib", "strip")
SYSTEM_BIN_DIR = Path("/usr/bin")
MIN_SYSTEM_VERSION = (12, 2)
SETUP_HINT = "invoke setup --only toolchain"
APT_HINT = "sudo apt-get install gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib"


def binaries_in(bin_dir: Path) -> dict[str, str]:
    """Absolute paths of the arm-none-eabi-* tools present in `bin_dir`."""
    found = {}
    for tool in BINARIES:
        path = bin_dir / f"{PREFIX}{tool}"
        if path.is_file():
            found[f"{PREFIX}{tool}"] = str(path.absolute())
    return found


def gcc_version(gcc: Path) -> str:
    """`gcc -dumpfullversion` (e.g. '12.2.1'), or an error naming the fix."""
    try:
        done = subprocess.run([str(gcc), "-dumpfullversion"], capture_output=True, text=True,
                              timeout=30, check=False)
    except OSError as error:
        raise OrchestratorError(f"{gcc} cannot run on this host ({error.strerror})",
                                SETUP_HINT) from None
    version = done.stdout.strip()
    if done.returncode != 0 or not re.fullmatch(r"\d+(\.\d+)*", version):
        raise OrchestratorError(f"{gcc} -dumpfullversion failed: {done.stderr.strip()[:200]}",
                                SETUP_HINT)
    return version


def version_tuple(version: str) -> tuple[int, ...]:
    """'12.2.1' -> (12, 2, 1)."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def describe_bin_dir(bin_dir: Path, provider: str,
                     min_version: tuple[int, ...] = MIN_SYSTEM_VERSION) -> dict[str, Any]:
    """The lock entry for the toolchain in `bin_dir`, after checking tools and version."""
    binaries = binaries_in(bin_dir)
    missing = [f"{PREFIX}{tool}" for tool in ("gcc", "g++", "objcopy", "size", "nm")
               if f"{PREFIX}{tool}" not in binaries]
    if missing:
        raise OrchestratorError(f"{bin_dir} lacks {', '.join(missing)}", APT_HINT)
    version = gcc_version(Path(binaries[f"{PREFIX}gcc"]))
    if version_tuple(version) < min_version:
        wanted = ".".join(map(str, min_version))
        raise OrchestratorError(f"{bin_dir}/{PREFIX}gcc is {version}, older than {wanted}",
                                f"{SETUP_HINT} --toolchain-provider arm")
    return {"provider": provider, "version": version, "bin_dir": str(bin_dir),
            "binaries": binaries}


def adopt_system_toolchain(scratch: Scratch, bin_dir: Path = SYSTEM_BIN_DIR) -> dict[str, Any]:
    """Record the system arm-none-eabi-* tools (Debian's 12.2 here) in the lock; return it."""
    entry = describe_bin_dir(bin_dir, provider="system")
    write_lock_entry(scratch, ARTIFACT, entry)
    return entry
