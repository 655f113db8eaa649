"""Absolute paths of the host tools that come with the Python environment or the OS.

cmake and ninja come from their PyPI packages (pinned by pyproject); QEMU from the OS
package manager. Every stage resolves them here, so PATH order never decides.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError

QEMU_BINARY = "qemu-system-arm"
_VERSION = re.compile(r"(\d+\.\d+(?:\.\d+)?)")


def python_interpreter() -> str:
    """This interpreter under one spelling however it was started: `python -m orchestrator`
    runs bin/python and invoke's shebang bin/python3, the same file, so build keys that
    record the interpreter stay equal (a different spelling rebuilt the runner)."""
    current = Path(sys.executable)
    for name in ("python3", "python"):
        sibling = current.with_name(name)
        try:
            if sibling.samefile(current):
                return str(sibling)
        except OSError:
            continue
    return str(current)


def cmake_binary() -> Path:
    """The cmake executable shipped by the `cmake` PyPI package: found beside the package
    (cmake/data/bin) without importing it (its import reads the distribution's file list)."""
    spec = importlib.util.find_spec("cmake")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        if (Path(folder) / "data" / "bin" / "cmake").is_file():
            return Path(folder) / "data" / "bin" / "cmake"
    import cmake

    return _existing(Path(cmake.CMAKE_BIN_DIR) / "cmake", "cmake", "pip install cmake")


def ninja_binary() -> Path:
    """The ninja executable shipped by the `ninja` PyPI package: found in the environment's
    scripts folder, where the package puts it (its BIN_DIR's default), without importing
    the package (its import loads ninja_syntax); else where the package says."""
    beside = Path(sysconfig.get_path("scripts")) / "ninja"
    if importlib.util.find_spec("ninja") is not None and beside.is_file():
        return beside
    import ninja

    return _existing(Path(ninja.BIN_DIR) / "ninja", "ninja", "pip install ninja")


def qemu_binary() -> Path:
    """qemu-system-arm from the OS (Debian: apt-get install qemu-system-arm)."""
    found = shutil.which(QEMU_BINARY)
    if not found:
        raise OrchestratorError(f"{QEMU_BINARY} is not installed",
                                "apt-get install qemu-system-arm (macOS: brew install qemu)")
    return Path(found).resolve()


def tool_version(binary: Path, flag: str = "--version") -> str:
    """The first dotted version number the tool prints ('' if it prints none)."""
    try:
        result = subprocess.run([str(binary), flag], capture_output=True, text=True,
                                timeout=20, check=False)
    except OSError:
        return ""
    match = _VERSION.search(result.stdout + result.stderr)
    return match.group(1) if match else ""


def version_tuple(version: str) -> tuple[int, ...]:
    """'7.2.22' -> (7, 2, 22); '15.2.rel1' -> (15, 2, 1); '' -> ()."""
    return tuple(int(part) for part in re.findall(r"\d+", version))


def _existing(path: Path, name: str, fix: str) -> Path:
    if not path.is_file():
        raise OrchestratorError(f"{name} is missing from the Python environment ({path})", fix)
    return path
