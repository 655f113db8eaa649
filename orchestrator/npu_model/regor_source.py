"""The pinned Vela sdist (regor's C++ sources), a setup build input (pins.toml
[inputs.vela-sdist], orchestrator/setup/inputs.py): installed by `invoke setup` or by this
process on first need, then one member read straight from the tarball. The NPU model's U85
register tables are generated from it; the build is handed the verified path."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.pins import load_pins, python_pin
from orchestrator.setup.inputs import checked_input, input_file

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


def vela_sdist(root: Scratch | None = None) -> Path:
    """The verified sdist tarball: the one setup recorded, else fetched now (the mirror, CA
    bundle and scratch of this process's environment)."""
    sdist_pin()   # the version check
    return input_file(PIN_NAME, root)


def regor_text(member: str, archive: Path | None = None) -> str:
    """One file of the sdist (path below its top directory) as text: from `archive` (a path a
    build step was handed, digest-checked here) or the one setup provides."""
    pin = sdist_pin()
    archive = checked_input(PIN_NAME, archive) if archive is not None else vela_sdist()
    name = f"{pin.top_dir}/{member}"
    import tarfile  # here: a warm run reads the generated tables, never the sdist

    with tarfile.open(archive, "r:gz") as tar:
        try:
            handle = tar.extractfile(name)
        except KeyError:
            handle = None
        if handle is None:
            raise OrchestratorError(f"{archive} has no {name}",
                                    f"invoke setup --only {PIN_NAME} --force")
        return handle.read().decode("utf-8")
