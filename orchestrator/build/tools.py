"""Absolute paths of the build tools: compilers from the setup lock, CMake/Ninja from pip."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.errors import OrchestratorError
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


def _pip_binary(module: str, name: str) -> Path:
    """The binary shipped by the cmake/ninja Python packages (project dependencies)."""
    try:
        package = __import__(module)
    except ImportError:
        raise OrchestratorError(f"the Python package '{module}' is not installed",
                                f"pip install {module}") from None
    directory = package.CMAKE_BIN_DIR if module == "cmake" else package.BIN_DIR
    path = Path(directory) / name
    if not path.is_file():
        raise OrchestratorError(f"{path} is missing", f"pip install --force-reinstall {module}")
    return path


def resolve_tools(scratch: Scratch) -> BuildTools:
    """Compilers recorded by `invoke setup`, CMake and Ninja from their Python packages."""
    return BuildTools(
        gcc=installed_binary(scratch, TOOLCHAIN, "arm-none-eabi-gcc"),
        gxx=installed_binary(scratch, TOOLCHAIN, "arm-none-eabi-g++"),
        cmake=_pip_binary("cmake", "cmake"),
        ninja=_pip_binary("ninja", "ninja"),
        toolchain_version=str(read_lock(scratch)[TOOLCHAIN].get("version", "")),
    )
