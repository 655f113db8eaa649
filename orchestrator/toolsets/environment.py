"""Where a toolset's environment lives (scratch/toolsets/<name>/) and what it holds (no torch).

The default toolset is the tool's own environment when the installed versions equal its
pins; every other toolset is a virtual environment whose toolset.json (written last, after
the installed versions were checked) says it is complete.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation.cache_check import checked
from orchestrator.foundation.paths import Scratch
from orchestrator.toolsets.catalogue import PACKAGES, Toolset
from orchestrator.toolsets.layering import layered_directories, tool_site_directories

TOOLSETS_DIR = "toolsets"
STATE_FILE = "toolset.json"
STATE_SCHEMA = 2   # 2: layered on the tool's site directories (1: --system-site-packages)


def directory_name(toolset: Toolset) -> str:
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", toolset.name)


def toolset_root(where: Scratch) -> Path:
    return where.root / TOOLSETS_DIR


def toolset_directory(toolset: Toolset, where: Scratch) -> Path:
    return toolset_root(where) / directory_name(toolset)


def python_of(directory: Path) -> Path:
    return directory / "bin" / "python"


def release(version: str) -> str:
    """'2.13.0+cpu' -> '2.13.0': local build tags do not change the release."""
    return version.split("+", 1)[0]


def version_differences(pinned: dict[str, str], installed: dict[str, str]) -> list[str]:
    """'executorch 1.4.1 is installed but 1.5.1 is pinned', per package that differs."""
    return [f"{package} {installed.get(package, 'missing')} is installed but "
            f"{version} is pinned" for package, version in sorted(pinned.items())
            if release(installed.get(package, "missing")) != version]


def own_versions() -> dict[str, str]:
    """The tool's own environment's versions of the toolset packages."""
    from orchestrator.aot.key import tool_versions

    return {package: tool_versions()[package] for package in PACKAGES}


def runs_in_process(toolset: Toolset) -> bool:
    """A toolset whose versions are the tool's own environment's (the default, or one that
    only adds Vela flags to it) compiles in this process; any other in its own environment."""
    return not version_differences(toolset.versions, own_versions())


@dataclass(frozen=True)
class InstalledToolset:
    """A complete toolset environment: its python and what was checked at install."""

    toolset: Toolset
    directory: Path
    state: dict[str, Any]

    @property
    def python(self) -> Path:
        return python_of(self.directory)

    @property
    def versions(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self.state["versions"].items()}


def installed_toolset(toolset: Toolset, where: Scratch) -> InstalledToolset | None:
    """The toolset's environment if it is complete, still holds its pinned versions and is
    layered on the environment running now (one layered on another is made again)."""
    directory = toolset_directory(toolset, where)
    try:
        state = json.loads((directory / STATE_FILE).read_text())
    except (OSError, json.JSONDecodeError):
        return None
    if (state.get("schema") != STATE_SCHEMA or state.get("packages") != toolset.versions
            or not python_of(directory).exists()
            or layered_directories(directory) != tool_site_directories()
            or not checked(directory, "installed again by invoke setup --toolsets "
                           f"{toolset.name}")):
        return None
    return InstalledToolset(toolset, directory, state)
