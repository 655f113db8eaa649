"""Absolute paths of the build tools: compilers from the setup lock, CMake/Ninja from pip."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.hosttools import cmake_binary, ninja_binary
from orchestrator.paths import Scratch
from orchestrator.setup.lock import installed_binary, read_lock

TOOLCHAIN = "toolchain"


@dataclass(frozen=True)
class BuildTools:
    """Everything a firmware configure/build runs."""

    gcc: Path
    gxx: Path
    cmake: Path
    ninja: Path
    toolchain_version: str


def resolve_tools(scratch: Scratch) -> BuildTools:
    """Compilers recorded by `invoke setup`, CMake and Ninja from their Python packages."""
    return BuildTools(
        gcc=installed_binary(scratch, TOOLCHAIN, "arm-none-eabi-gcc"),
        gxx=installed_binary(scratch, TOOLCHAIN, "arm-none-eabi-g++"),
        cmake=cmake_binary(),
        ninja=ninja_binary(),
        toolchain_version=str(read_lock(scratch)[TOOLCHAIN].get("version", "")),
    )
