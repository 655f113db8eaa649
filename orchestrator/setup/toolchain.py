"""Toolchain providers: a system arm-none-eabi-gcc (version-checked) or the pinned Arm download.

Either way the lock records absolute paths of every tool; later stages never use PATH order.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import filling
from orchestrator.foundation.hosttools import version_tuple
from orchestrator.foundation.paths import Scratch
from orchestrator.setup.catalogue import Artifact, host_build, load_setup_catalogue
from orchestrator.setup.context import (
    Context,
    download_entry,
    obtain_archive,
    relocate,
    unpack_hint,
)
from orchestrator.setup.install import commit_install, discard, staging_dir
from orchestrator.setup.lock import write_lock_entry
from orchestrator.setup.unpack import safe_extract

ARTIFACT = "toolchain"
PREFIX = "arm-none-eabi-"
TOOLS = ("gcc", "g++", "objcopy", "size", "nm", "ar", "as", "ld", "objdump", "readelf",
         "ranlib", "strip")
REQUIRED = ("gcc", "g++", "objcopy", "size", "nm")
SYSTEM_BIN_DIR = Path("/usr/bin")
DEFAULT_MIN_VERSION = "12.2"
SETUP_HINT = "invoke setup --only toolchain"
APT_HINT = "sudo apt-get install gcc-arm-none-eabi libstdc++-arm-none-eabi-newlib"


def binaries_in(bin_dir: Path) -> dict[str, str]:
    """Absolute paths of the arm-none-eabi-* tools present in `bin_dir`."""
    found = {}
    for tool in TOOLS:
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
                                f"{SETUP_HINT} --toolchain-provider arm") from None
    version = done.stdout.strip()
    if done.returncode != 0 or not re.fullmatch(r"\d+(\.\d+)*", version):
        raise OrchestratorError(f"{gcc} -dumpfullversion failed: {done.stderr.strip()[:200]}",
                                f"{SETUP_HINT} --toolchain-provider arm")
    return version


def describe_bin_dir(bin_dir: Path, provider: str, min_version: str = DEFAULT_MIN_VERSION,
                     exact: bool = False) -> dict[str, Any]:
    """The lock entry for the toolchain in `bin_dir`, after checking its tools and version."""
    binaries = binaries_in(bin_dir)
    missing = [f"{PREFIX}{tool}" for tool in REQUIRED if f"{PREFIX}{tool}" not in binaries]
    if missing:
        raise OrchestratorError(f"{bin_dir} lacks {', '.join(missing)}",
                                f"{APT_HINT}, or {SETUP_HINT} --toolchain-provider arm")
    version = gcc_version(Path(binaries[f"{PREFIX}gcc"]))
    wanted = version_tuple(min_version)[:2]
    have = version_tuple(version)[:2]
    if have < wanted or (exact and have != wanted):
        raise OrchestratorError(
            f"{bin_dir}/{PREFIX}gcc is {version}, "
            f"{'not' if exact else 'older than'} {'.'.join(map(str, wanted))}",
            f"{SETUP_HINT} --toolchain-provider arm --force")
    return {"kind": "toolchain", "provider": provider, "version": version,
            "gcc_version": version, "bin_dir": str(bin_dir.absolute()), "binaries": binaries}


def _min_version(artifact: Artifact | None) -> str:
    """The oldest system GCC the pins accept."""
    return (artifact.system_min_version if artifact else "") or DEFAULT_MIN_VERSION


def adopt_system_toolchain(scratch: Scratch, bin_dir: Path = SYSTEM_BIN_DIR) -> dict[str, Any]:
    """Record the system arm-none-eabi-* tools (Debian's 12.2 here) in the lock; return it."""
    artifact = load_setup_catalogue().artifacts.get(ARTIFACT)
    entry = describe_bin_dir(bin_dir, provider="system", min_version=_min_version(artifact))
    write_lock_entry(scratch, ARTIFACT, entry)
    return entry


def install_arm_toolchain(ctx: Context, artifact: Artifact) -> dict[str, Any]:
    """Download, verify and unpack the pinned Arm GNU Toolchain into scratch/tools/toolchain."""
    build = host_build(artifact, ctx.host)
    archive = obtain_archive(ctx, artifact, build)
    target = ctx.install_dir(artifact.name)
    staged = staging_dir(target)
    with filling(target):
        try:
            safe_extract(archive, artifact.archive, staged, unpack_hint(ctx, artifact, archive))
            entry = _describe_unpacked(archive, staged, Path(build.top_dir) / artifact.bin_dir,
                                       artifact.version)
            entry = {**relocate(entry, staged, target),
                     **download_entry(ctx, artifact, build, archive), "provider": "arm"}
            commit_install(staged, target, entry)
        except BaseException:
            discard(staged)
            raise
    return entry


def _describe_unpacked(archive: Path, staged: Path, bin_dir: Path,
                       version: str) -> dict[str, Any]:
    """The lock entry for the unpacked download; an archive that does not hold the pinned
    tools is named by its own paths (the staging tree is deleted), and the fix is another
    provider, not the same download again."""
    try:
        return describe_bin_dir(staged / bin_dir, provider="arm", min_version=version,
                                exact=True)
    except OrchestratorError as error:
        cause = error.cause.replace(str(staged / bin_dir), f"{archive.name}:{bin_dir}")
        raise OrchestratorError(
            f"{cause} (the pins in orchestrator/data/pins.toml do not describe this archive); "
            "nothing was installed",
            f"{APT_HINT}, then: {SETUP_HINT} --toolchain-provider system") from None


def provide_toolchain(ctx: Context, artifact: Artifact) -> dict[str, Any]:
    """Pick the provider (auto: a good system GCC, else the pinned download); return the entry."""
    provider = ctx.options.toolchain_provider
    bin_dir = ctx.options.toolchain_dir or SYSTEM_BIN_DIR
    if provider == "system" or ctx.options.toolchain_dir is not None:
        return describe_bin_dir(bin_dir, "system", _min_version(artifact))
    if provider == "auto":
        try:
            return describe_bin_dir(bin_dir, "system", _min_version(artifact))
        except OrchestratorError:
            pass
    return install_arm_toolchain(ctx, artifact)
