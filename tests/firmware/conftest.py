"""Session fixtures for real firmware builds and QEMU runs: each config builds once."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.firmware.build import BuildResult, build_firmware, config_for_target
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.hosttools import qemu_binary
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.setup.toolchain import SYSTEM_BIN_DIR, adopt_system_toolchain
from orchestrator.targets import Simulator, load_catalogue

GCC = SYSTEM_BIN_DIR / "arm-none-eabi-gcc"


class Builds:
    """Builds of the firmware project in one session scratch, cached by (target, options)."""

    def __init__(self, work: Scratch) -> None:
        self.work = work
        self._cache: dict[tuple[str, str, tuple[str, ...]], BuildResult] = {}

    def get(self, target: str, *options: str, app: str = "selftest") -> BuildResult:
        key = (target, app, tuple(sorted(options)))
        if key not in self._cache:
            config = config_for_target(target, app=app, options=list(options))
            self._cache[key] = build_firmware(self.work, config)
        return self._cache[key]


@pytest.fixture(scope="session")
def fw_scratch(tmp_path_factory: pytest.TempPathFactory) -> Scratch:
    """A session scratch whose lock records Debian's arm-none-eabi toolchain."""
    if not GCC.is_file():
        pytest.skip("arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
    work = scratch(tmp_path_factory.mktemp("fw-scratch")).ensure()
    adopt_system_toolchain(work)
    return work


@pytest.fixture(scope="session")
def builds(fw_scratch: Scratch) -> Builds:
    return Builds(fw_scratch)


@pytest.fixture(scope="session")
def qemu() -> tuple[Simulator, Path]:
    """The catalogue's QEMU simulator and the qemu-system-arm binary."""
    try:
        binary = qemu_binary()
    except OrchestratorError as error:
        pytest.skip(error.message)
    return load_catalogue().simulator("qemu"), binary


@pytest.fixture()
def use_scratch(fw_scratch: Scratch, monkeypatch: pytest.MonkeyPatch) -> Scratch:
    """Point ETHOSU_ORCH_SCRATCH at the session scratch (for the CLI entry points)."""
    monkeypatch.setenv("ETHOSU_ORCH_SCRATCH", str(fw_scratch.root))
    return fw_scratch
