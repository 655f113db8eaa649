"""Absolute paths of the build tools: compilers from the setup lock, CMake/Ninja from pip."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from orchestrator.foundation.hosttools import cmake_binary, ninja_binary
from orchestrator.foundation.paths import Scratch
from orchestrator.setup.lock import installed_binary, read_lock

TOOLCHAIN = "toolchain"


@dataclass
class BuildTools:
    """Everything a firmware configure/build runs (cmake is looked up only when needed)."""

    gcc: Path
    gxx: Path
    ninja: Path
    toolchain_version: str

    @cached_property
    def cmake(self) -> Path:
        return cmake_binary()


def resolve_tools(scratch: Scratch) -> BuildTools:
    """Compilers recorded by `invoke setup`, CMake and Ninja from their Python packages."""
    return BuildTools(
        gcc=installed_binary(scratch, TOOLCHAIN, "arm-none-eabi-gcc"),
        gxx=installed_binary(scratch, TOOLCHAIN, "arm-none-eabi-g++"),
        ninja=ninja_binary(),
        toolchain_version=str(read_lock(scratch)[TOOLCHAIN].get("version", "")),
    )
