"""A scratch set up as a user sets one up (`invoke setup --only toolchain,sources` with the
upstream trees of $ETHOSU_ORCH_TEST_SOURCES), for the API and plugin runs on QEMU; skipped
with the reason without the sources, the toolchain or QEMU."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCES_ENV = "ETHOSU_ORCH_TEST_SOURCES"
ROOT = Path(__file__).resolve().parents[2]
TREES = ("executorch", "cmsis-nn", "ethosu-core-driver", "cmsis")


def setup_line(sources: Path) -> list[str]:
    """The setup command of the getting-started guide, with local source trees."""
    return [sys.executable, "-m", "invoke", "setup", "--only", "toolchain,sources",
            "--allow-unpinned=json,ethosu-core-driver", "--quiet",
            *(f"--source={name}={sources / name}" for name in TREES)]


@pytest.fixture(scope="session")
def sourced_scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get(SOURCES_ENV)
    if not given or not all((Path(given) / name).is_dir() for name in TREES):
        pytest.skip(f"needs upstream ExecuTorch/Ethos-U sources: set {SOURCES_ENV} to a "
                    f"directory holding {', '.join(TREES)}")
    if not shutil.which("arm-none-eabi-gcc") or not shutil.which("qemu-system-arm"):
        pytest.skip("needs arm-none-eabi-gcc and qemu-system-arm (apt-get install "
                    "gcc-arm-none-eabi qemu-system-arm)")
    root = tmp_path_factory.mktemp("sourced-scratch")
    subprocess.run(setup_line(Path(given)), cwd=ROOT, check=True, capture_output=True,
                   env={**os.environ, "ETHOSU_ORCH_SCRATCH": str(root)})
    return root
