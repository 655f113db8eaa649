"""Fixtures for runner tests that need the upstream sources (skipped with a reason without)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from orchestrator.foundation.paths import Scratch, repo_root, scratch
from orchestrator.runner.sources import resolve_sources, sources_available, trees_under
from orchestrator.setup.toolchain import SYSTEM_BIN_DIR, adopt_system_toolchain

SOURCES_ENV = "ETHOSU_ORCH_TEST_SOURCES"       # a dir holding executorch/, cmsis-nn/, ...
BUILD_SCRATCH_ENV = "ETHOSU_ORCH_TEST_BUILD_SCRATCH"  # reuse runtime builds across sessions


def _given_sources() -> dict[str, Path]:
    root = os.environ.get(SOURCES_ENV)
    return trees_under(Path(root)) if root else {}


@pytest.fixture(scope="session")
def runtime_sources() -> dict[str, Path]:
    """Upstream trees from $ETHOSU_ORCH_TEST_SOURCES, else the checkout's setup lock."""
    given = _given_sources()
    lock_scratch = scratch(repo_root() / "scratch")
    reason = sources_available(lock_scratch, given, npu=True)
    if reason:
        pytest.skip(f"needs upstream ExecuTorch/Ethos-U sources ({reason}); set "
                    f"{SOURCES_ENV} or run invoke setup --only sources")
    trees = resolve_sources(lock_scratch, given, npu=True)
    return {"executorch": trees.executorch, "cmsis-nn": trees.cmsis_nn,
            "ethosu-core-driver": trees.ethosu_driver, "cmsis": trees.cmsis}


@pytest.fixture(scope="session")
def runner_scratch(tmp_path_factory: pytest.TempPathFactory, runtime_sources) -> Scratch:
    """A scratch for runner builds (a session temp dir unless the env var names one)."""
    if not (SYSTEM_BIN_DIR / "arm-none-eabi-gcc").is_file():
        pytest.skip("arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
    if not shutil.which("qemu-system-arm"):
        pytest.skip("qemu-system-arm is not installed (apt-get install qemu-system-arm)")
    chosen = os.environ.get(BUILD_SCRATCH_ENV) or tmp_path_factory.mktemp("runner-scratch")
    work = scratch(chosen).ensure()
    adopt_system_toolchain(work)
    return work
