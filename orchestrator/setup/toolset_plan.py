"""What a toolset's install would add over the tool's environment: pip resolves the toolset's
requirements in the layered environment (`pip install --dry-run --report`, wheels only), so
everything the tool already has (torch, and every dependency at a fitting version) is taken
from it, and the report names each distribution that would be downloaded, dependencies
included. Each is then downloaded alone and digest-checked before anything is installed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.toolsets.catalogue import PACKAGES, Toolset
from orchestrator.toolsets.layering import canonical, is_heavy


@dataclass(frozen=True)
class Addition:
    """One distribution the toolset's environment would get: a pin or a dependency."""

    name: str
    version: str
    pinned: bool    # one of the toolset's own packages (its version is the toolset's pin)

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


def requirements(toolset: Toolset, needed: list[str]) -> list[str]:
    """The requirements to resolve: executorch with its ethos-u extra, the others as pinned."""
    return [f"{package}[ethos-u]=={toolset.versions[package]}" if package == "executorch"
            else f"{package}=={toolset.versions[package]}" for package in needed]


def read_report(report: Path) -> list[tuple[str, str]]:
    """(name, version) of each distribution pip's --report would install."""
    document = json.loads(report.read_text())
    return [(str(item["metadata"]["name"]), str(item["metadata"]["version"]))
            for item in document.get("install", [])]


def additions(toolset: Toolset, needed: list[str], resolved: list[tuple[str, str]]
              ) -> list[Addition]:
    """The toolset's needed pins (each laid over what its resolution brought), then every
    other resolved distribution as a dependency; a heavy dependency (torch, triton,
    nvidia-*) the toolset does not pin is refused."""
    pins = [Addition(package, toolset.versions[package], True) for package in needed]
    own = {canonical(package): package for package in PACKAGES}
    contrary = [f"{name} {version}" for name, version in resolved if canonical(name) in own
                and own[canonical(name)] not in needed
                and version.split("+")[0] != toolset.versions[own[canonical(name)]]]
    if contrary:
        raise OrchestratorError(
            f"toolset {toolset.name}'s packages need {', '.join(contrary)}, not its pins",
            f"correct its packages in toolsets.toml, then invoke setup --toolsets {toolset.name}")
    dependencies = sorted({(canonical(name), version) for name, version in resolved
                           if canonical(name) not in own})
    heavy = [f"{name} {version}" for name, version in dependencies if is_heavy(name)]
    if heavy:
        raise OrchestratorError(
            f"toolset {toolset.name} would pull {', '.join(heavy)}, which it does not pin "
            f"(a registry build of gigabytes, never installed silently)",
            f"install the tool with torch=={toolset.versions['torch']} first (pip install "
            f"torch=={toolset.versions['torch']}), then invoke setup --toolsets {toolset.name}")
    return pins + [Addition(name, version, False) for name, version in dependencies]
