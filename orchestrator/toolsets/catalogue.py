"""The toolsets (orchestrator/data/toolsets.toml), and toolsets named on the command line as
requirements over the default ("executorch==1.5.1", "ethos-u-vela==5.2.0+executorch==1.4.1").
No torch, no executorch."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data

TOOLSETS_PATH = DATA_DIR / "toolsets.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
TOOLSETS_LAYOUT: dict[str, Layout] = {
    "schema": ANY,
    "default": ANY,
    "toolsets": {EACH: {"title": ANY, "packages": ANY, "runtime_tag": ANY, "vela_flags": ANY}},
    "digests": ANY,              # file name -> sha256
    "dependency_digests": ANY,   # file name -> sha256
}

PACKAGES = ("torch", "executorch", "ethos-u-vela", "tosa-tools")
_REQUIREMENT = re.compile(r"^([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+-]+)$")


@dataclass(frozen=True)
class Toolset:
    """One named stack: the version of each package, and the runtime tag it needs."""

    name: str
    packages: tuple[tuple[str, str], ...]
    runtime_tag: str
    title: str = ""
    default: bool = False
    vela_flags: tuple[str, ...] = ()   # given to Vela on every compile under this toolset

    @property
    def versions(self) -> dict[str, str]:
        return dict(self.packages)

    @property
    def executorch(self) -> str:
        return self.versions["executorch"]

    @property
    def vela(self) -> str:
        return self.versions["ethos-u-vela"]

    def describe(self) -> str:
        flags = f" {' '.join(self.vela_flags)}" if self.vela_flags else ""
        return f"{self.name} (executorch {self.executorch}, Vela {self.vela}{flags})"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "packages": self.versions, "runtime_tag": self.runtime_tag,
                "default": self.default, "vela_flags": list(self.vela_flags)}


@lru_cache(maxsize=1)
def _document() -> dict[str, Any]:
    return load_data(TOOLSETS_PATH, TOOLSETS_LAYOUT)


def _from_table(name: str, table: dict[str, Any], default: str) -> Toolset:
    packages = {str(k): str(v) for k, v in table["packages"].items()}
    missing = [package for package in PACKAGES if package not in packages]
    if missing:
        raise OrchestratorError(f"toolset {name} in {TOOLSETS_PATH} pins no "
                                f"{', '.join(missing)}", "add them to its packages table")
    return Toolset(name=name, packages=tuple(sorted(packages.items())),
                   runtime_tag=str(table["runtime_tag"]), title=str(table.get("title", "")),
                   default=name == default,
                   vela_flags=tuple(str(flag) for flag in table.get("vela_flags", ())))


def toolsets() -> dict[str, Toolset]:
    """Every toolset named in the data, by name."""
    document = _document()
    default = str(document["default"])
    return {name: _from_table(name, table, default)
            for name, table in document["toolsets"].items()}


def default_toolset() -> Toolset:
    return toolsets()[str(_document()["default"])]


def pinned_digests(tables: tuple[str, ...] = ("digests", "dependency_digests")
                   ) -> dict[str, str]:
    """sha256 by distribution file name: the toolsets' packages' and their dependencies'."""
    return {str(k): str(v) for table in tables for k, v in _document().get(table, {}).items()}


def _from_requirements(spec: str) -> Toolset:
    base = default_toolset()
    packages = base.versions
    for requirement in spec.split("+"):
        match = _REQUIREMENT.match(requirement.strip())
        if match is None or match.group(1) not in PACKAGES:
            raise OrchestratorError(
                f"toolset '{spec}' is neither a name in {TOOLSETS_PATH.name} nor "
                f"requirements like executorch==1.5.1 over {', '.join(PACKAGES)}",
                "list the toolsets with: invoke toolsets")
        packages[match.group(1)] = match.group(2)
    runtime = f"v{packages['executorch']}"
    for known in toolsets().values():   # the same stack as a named one: that one
        if known.versions == packages and not known.vela_flags:
            return known
    name = "+".join(f"{package}=={packages[package]}" for package in PACKAGES
                    if packages[package] != base.versions[package]) or base.name
    return Toolset(name=name, packages=tuple(sorted(packages.items())), runtime_tag=runtime,
                   title=f"{base.name} with {name}")


def find_toolset(spec: str | None) -> Toolset:
    """A toolset by name, by requirements over the default, or (None/'') the default."""
    if not spec:
        return default_toolset()
    known = toolsets()
    if spec in known:
        return known[spec]
    return _from_requirements(spec)


def parse_toolsets(value: str) -> tuple[Toolset, ...]:
    """'A,B' -> two toolsets (distinct, in order); a one-line error otherwise."""
    chosen = tuple(find_toolset(part.strip()) for part in value.split(",") if part.strip())
    if len({toolset.name for toolset in chosen}) != len(chosen) or not chosen:
        raise OrchestratorError(f"--toolsets '{value}' must name distinct toolsets",
                                "e.g. --toolsets et-1.4.1,et-1.5.1 (invoke toolsets lists them)")
    return chosen
