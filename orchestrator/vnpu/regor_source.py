"""The pinned Vela sdist (regor's C++ sources), fetched on first use: downloaded by the setup
download code (digest check, cache, atomic rename) into scratch/downloads, then one member read
straight from the tarball. The NPU model's U85 register tables are generated from it."""

from __future__ import annotations

import os
import tarfile
from dataclasses import dataclass
from pathlib import Path

from orchestrator.errors import OrchestratorError
from orchestrator.paths import scratch
from orchestrator.pins import load_pins, python_pin
from orchestrator.setup.download import DownloadPolicy, Request, cached_file, mirrored_url
from orchestrator.setup.options import MIRROR_ENV

PIN_NAME = "vela-sdist"
U85_INTERFACE = "ethosu/regor/architecture/ethosu85/ethos_u85_interface.hpp"


@dataclass(frozen=True)
class SdistPin:
    """[inputs.vela-sdist] of pins.toml."""

    url: str
    sha256: str
    top_dir: str
    package: str

    @property
    def filename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]


def sdist_pin() -> SdistPin:
    """The pinned sdist; its version must be the pinned Vela package's."""
    entry = load_pins()["inputs"][PIN_NAME]
    pin = SdistPin(str(entry["url"]), str(entry["sha256"]), str(entry["top_dir"]),
                   str(entry["package"]))
    version = python_pin(pin.package)
    if not pin.top_dir.endswith(f"-{version}"):
        raise OrchestratorError(f"pins.toml [inputs.{PIN_NAME}] is {pin.top_dir}, not "
                                f"{pin.package} {version} as [python] pins it",
                                "make the two pins agree in orchestrator/data/pins.toml")
    return pin


def vela_sdist(cache_dir: Path | None = None, *, policy: DownloadPolicy | None = None) -> Path:
    """The verified sdist tarball in the download cache (fetched from PyPI, or from the mirror
    $ETHOSU_ORCH_MIRROR names, when absent)."""
    pin = sdist_pin()
    request = Request(
        url=mirrored_url(pin.url, os.environ.get(MIRROR_ENV) or None),
        filename=pin.filename,
        digests={"sha256": pin.sha256},
        hint=f"check the network (or {MIRROR_ENV}), then rebuild; the file is {pin.url}")
    return cached_file(cache_dir or scratch().downloads, request,
                       policy=policy or DownloadPolicy(progress=False))


def regor_text(member: str, cache_dir: Path | None = None) -> str:
    """One file of the sdist (path below its top directory) as text."""
    pin = sdist_pin()
    archive = vela_sdist(cache_dir)
    name = f"{pin.top_dir}/{member}"
    with tarfile.open(archive, "r:gz") as tar:
        try:
            handle = tar.extractfile(name)
        except KeyError:
            handle = None
        if handle is None:
            raise OrchestratorError(f"{archive} has no {name}",
                                    f"delete {archive} and rebuild to fetch it again")
        return handle.read().decode("utf-8")
