"""Typed view of the setup pins: artifacts (downloads) and sources (git trees), per host."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.pins import load_pins, source_needs
from orchestrator.setup.build_input import DIGEST_KINDS, NEEDED_FOR, BuildInput, parse_input

ARCHIVE_TYPES = ("tar.xz", "tgz", "tar.gz", "tar")
EULA_ENV = "ARM_FVP_INSTALL_I_AGREE_TO_THE_CONTAINED_EULA"   # upstream's consent variable


@dataclass(frozen=True)
class HostBuild:
    """One downloadable file of an artifact for one host."""

    url: str
    digests: dict[str, str]
    top_dir: str = ""
    model_dir: str = ""
    digest_note: str = ""

    @property
    def filename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]


@dataclass(frozen=True)
class Artifact:
    """A pinned download (toolchain or FVP) with its builds per host."""

    name: str
    kind: str
    title: str
    version: str
    archive: str
    hosts: dict[str, HostBuild]
    binaries: tuple[str, ...]
    needed_for: str = "all"
    bin_dir: str = ""
    installer: str = ""
    bundled_python: str = ""
    system_min_version: str = ""
    origin: str = ""


@dataclass(frozen=True)
class Source:
    """A pinned upstream git tree (a submodule when `parent` is set)."""

    name: str
    url: str
    tag: str = ""
    commit: str = ""
    parent: str = ""
    path: str = ""
    package: str = ""
    needed_for: str = "all"
    required_files: tuple[str, ...] = ()
    submodules: tuple[str, ...] = field(default=(), compare=False)

    @property
    def rev(self) -> str:
        """The revision to fetch: the commit when pinned, else the tag."""
        return self.commit or self.tag


@dataclass(frozen=True)
class SetupCatalogue:
    """Everything `invoke setup` can install."""

    artifacts: dict[str, Artifact]
    sources: dict[str, Source]
    inputs: dict[str, BuildInput] = field(default_factory=dict)

    def top_sources(self) -> list[Source]:
        """Sources that are not submodules of another source."""
        return [source for source in self.sources.values() if not source.parent]


def host_key(system: str | None = None, machine: str | None = None) -> str:
    """'linux-x86_64', 'linux-aarch64' or 'darwin-arm64' style key for this host."""
    import platform  # here: its import compiles regexes a warm run never uses

    system = (system or platform.system()).lower()
    machine = (machine or platform.machine()).lower()
    machine = {"amd64": "x86_64", "arm64": "arm64" if system == "darwin" else "aarch64"}.get(
        machine, machine)
    return f"{system}-{machine}"


def _host_build(artifact: str, host: str, table: Mapping[str, Any]) -> HostBuild:
    """Parse one [artifacts.X.hosts.Y] table."""
    digests = {kind: str(table[kind]).lower() for kind in DIGEST_KINDS if kind in table}
    if not digests or "url" not in table:
        raise ValueError(f"pins: artifacts.{artifact}.hosts.{host} needs url and a digest")
    return HostBuild(url=str(table["url"]), digests=digests, top_dir=table.get("top_dir", ""),
                     model_dir=table.get("model_dir", ""),
                     digest_note=table.get("digest_note", ""))


def parse_artifact(name: str, table: Mapping[str, Any]) -> Artifact:
    """Parse one [artifacts.X] table."""
    needed_for = table.get("needed_for", "all")
    if table.get("archive") not in ARCHIVE_TYPES or needed_for not in NEEDED_FOR:
        raise ValueError(f"pins: artifacts.{name} has a bad archive or needed_for")
    hosts = {host: _host_build(name, host, build) for host, build in table["hosts"].items()}
    return Artifact(name=name, kind=table["kind"], title=table.get("title", name),
                    version=str(table["version"]), archive=table["archive"], hosts=hosts,
                    binaries=tuple(table.get("binaries", ())),
                    needed_for=table.get("needed_for", "all"), bin_dir=table.get("bin_dir", ""),
                    installer=table.get("installer", ""),
                    bundled_python=table.get("bundled_python", ""),
                    system_min_version=str(table.get("system_min_version", "")),
                    origin=table.get("origin", ""))


def parse_source(name: str, table: Mapping[str, Any], children: tuple[str, ...]) -> Source:
    """Parse one [sources.X] table."""
    if not (table.get("tag") or table.get("commit")) or bool(table.get("parent")) != bool(
            table.get("path")):
        raise ValueError(f"pins: sources.{name} needs a tag or commit, and parent with path")
    needed_for, required_files = source_needs(dict(table))
    return Source(name=name, url=table["url"], tag=table.get("tag", ""),
                  commit=table.get("commit", "").lower(), parent=table.get("parent", ""),
                  path=table.get("path", ""), package=table.get("package", ""),
                  needed_for=needed_for, required_files=required_files, submodules=children)


def parse_setup_catalogue(pins: Mapping[str, Any]) -> SetupCatalogue:
    """Build the setup catalogue from a parsed pins document."""
    artifacts = {name: parse_artifact(name, table)
                 for name, table in pins.get("artifacts", {}).items()}
    raw_sources = pins.get("sources", {})
    sources = {}
    for name, table in raw_sources.items():
        children = tuple(child for child, sub in raw_sources.items() if sub.get("parent") == name)
        sources[name] = parse_source(name, table, children)
    inputs = {name: parse_input(name, table) for name, table in pins.get("inputs", {}).items()}
    return SetupCatalogue(artifacts=artifacts, sources=sources, inputs=inputs)


def load_setup_catalogue() -> SetupCatalogue:
    """The setup catalogue from orchestrator/data/pins.toml."""
    return parse_setup_catalogue(load_pins())


def host_build(artifact: Artifact, host: str | None = None) -> HostBuild:
    """The build of `artifact` for this host, or an error naming what to do instead."""
    host = host or host_key()
    build = artifact.hosts.get(host)
    if build is not None:
        return build
    if artifact.kind == "fvp" and host.startswith("darwin"):
        raise OrchestratorError(
            f"{artifact.title} has no macOS build (Corstone FVPs are Linux-only)",
            "install FVPs-on-Mac (https://github.com/Arm-Examples/FVPs-on-Mac), then "
            f"invoke setup --only {artifact.name} --fvp-dir {artifact.name}=<its bin folder>")
    raise OrchestratorError(f"{artifact.title} {artifact.version} has no build for {host}",
                            f"invoke setup --only {artifact.name} --archive "
                            f"{artifact.name}=<a {artifact.archive} for this host>")


def pin_label(source: Source) -> str:
    """'v1.4.1' or a short commit: what the pins ask for."""
    return source.tag or source.commit[:12]
