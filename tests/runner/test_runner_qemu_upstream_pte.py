"""Artifacts written by upstream's own aot_arm_compiler (the installed sources' script, as
run.sh calls it): a U85 .bpte (--bundleio), a U55 .pte and a Cortex-M55 .pte are inspected
and run with `invoke run --pte`, no compile of ours. Needs the upstream sources (skips
without)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator.api.run_job import execute
from orchestrator.artifacts.inspection import inspect_artifact
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import Scratch
from orchestrator.results import Status

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]
MODEL = "linear"


def aot_arm_compiler(sources: dict[str, Any], target: str, out: Path, *flags: str) -> Path:
    """Upstream's script from the source tree: --delegate --quantize for an Ethos-U target."""
    subprocess.run([sys.executable, "-m", "backends.arm.scripts.aot_arm_compiler",
                    f"--model_name={MODEL}", "--quantize", f"--target={target}",
                    f"--output={out}", *flags], cwd=sources["executorch"], check=True,
                   capture_output=True, timeout=900)
    return out


@pytest.mark.parametrize(("target", "suffix", "flags"), [
    ("ethos-u85-128", ".bpte", ("--delegate", "--bundleio")),
    ("ethos-u55-128", ".pte", ("--delegate",)),
    ("cortex-m55", ".pte", ()),
])
def test_upstream_artifact_runs(tmp_path: Path, runner_scratch: Scratch,
                                runtime_sources: dict[str, Any], target: str, suffix: str,
                                flags: tuple[str, ...]) -> None:
    artifact = aot_arm_compiler(runtime_sources, target, tmp_path / f"{MODEL}{suffix}", *flags)
    inspection = inspect_artifact(artifact)
    assert inspection.runnable, inspection.reasons
    assert inspection.targets == (() if target.startswith("cortex") else (target,))
    assert (inspection.bundle is not None) == (suffix == ".bpte")
    result = execute(RunRequest(pte=str(artifact), sim="qemu", timeout_s=300.0,
                                idle_timeout_s=120.0,
                                runner=RunnerSettings(sources=runtime_sources)), runner_scratch)
    assert result.status is Status.PASS, result.reason
    assert result.target.name == target
    assert result.outputs
