"""`invoke doctor` on this machine: real detection of what .ci/run installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.foundation.paths import scratch
from orchestrator.setup.toolchain import adopt_system_toolchain

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("arm-none-eabi-gcc") is None
                                or shutil.which("qemu-system-arm") is None,
                                reason="needs Debian's gcc-arm-none-eabi and qemu-system-arm")


def doctor(tmp_scratch: Path, *args: str) -> tuple[int, dict]:
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp_scratch)}
    result = subprocess.run([sys.executable, "-m", "invoke", "doctor", "--json", *args],
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    return result.returncode, json.loads(result.stdout)


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doctor-scratch")
    adopt_system_toolchain(scratch(root).ensure())
    return root


def rows(report: dict) -> dict[str, dict]:
    return {row["name"]: row for row in report["checks"]}


def test_doctor_finds_the_real_tools(adopted: Path) -> None:
    _, report = doctor(adopted)
    found = rows(report)
    toolchain = found["arm-none-eabi toolchain"]
    assert toolchain["state"] == "ok" and toolchain["version"].startswith("12.")
    assert found["qemu"]["state"] == "ok"
    assert found["qemu"]["found"] == str(Path(shutil.which("qemu-system-arm")).resolve())
    assert found["cmake"]["state"] == "ok" and found["ninja"]["state"] == "ok"
    assert found["torch"]["version"].startswith("2.13.0")
    assert found["executorch"]["version"] == "1.4.1"


def test_every_problem_names_its_fix(adopted: Path) -> None:
    _, report = doctor(adopted)
    for row in report["checks"]:
        if row["state"] != "ok":
            assert row["fix"].startswith(("invoke ", "pip ", "apt-get ")), row


def test_missing_fvp_blocks_npu_target_but_not_the_qemu_lane(adopted: Path) -> None:
    code, report = doctor(adopted, "--target", "ethos-u55-128")
    fvp = rows(report)["fvp-corstone-300"]
    if fvp["state"] == "ok":
        pytest.skip("this machine has the Corstone-300 FVP installed")
    assert code == 1 and "fvp-corstone-300" in report["problems"]
    code, report = doctor(adopted, "--target", "cortex-m55")
    assert "qemu" not in report["problems"] and "fvp-corstone-300" not in report["problems"]


def test_fresh_scratch_reports_toolchain_missing_with_setup_command(tmp_path: Path) -> None:
    code, report = doctor(tmp_path)
    toolchain = rows(report)["arm-none-eabi toolchain"]
    assert code == 1 and toolchain["state"] == "missing"
    assert toolchain["fix"] == "invoke setup --only toolchain"
