"""`invoke build --app runner` through the real CLI, with upstream sources: it builds the
runner for a CPU target and for an NPU target (no simulator involved), and two copies of
this checkout at different paths build both to the same section sizes and bytes. The
runtime, which compiles nothing of the checkout, is shared by both copies (reconfigured,
not recompiled)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator.foundation.paths import Scratch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "firmware"))
from clone_copies import cli, copy_checkout, sizes  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.needs_sources]
TARGETS = ("cortex-m55", "ethos-u55-128")
SOURCE_NAMES = {"executorch": "executorch", "cmsis-nn": "cmsis-nn",
                "ethosu-core-driver": "ethosu-core-driver", "cmsis": "cmsis"}


@pytest.fixture(scope="module")
def checkouts(tmp_path_factory: pytest.TempPathFactory, runner_scratch: Scratch,
              runtime_sources: dict[str, Path]) -> list[Path]:
    base = tmp_path_factory.mktemp("clones")
    places = [copy_checkout(base / "a"), copy_checkout(base / "deeper" / "second-clone")]
    setup = ["setup", "--only", ",".join(SOURCE_NAMES), "--allow-unpinned", "--quiet"]
    for name, path in runtime_sources.items():
        setup += ["--source", f"{name}={path}"]
    done = cli(places[0], runner_scratch.root, *setup)
    assert done.returncode == 0, done.stderr
    return places


def build_runner(checkout: Path, work: Path, target: str) -> dict[str, Any]:
    done = cli(checkout, work, "build", "--target", target, "--app", "runner", "--json",
               "--quiet")
    assert done.returncode == 0, done.stderr
    assert "eor: " not in done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("target", TARGETS)
def test_runner_builds_the_same_from_two_checkouts(checkouts, runner_scratch, target):
    first, second = (build_runner(checkout, runner_scratch.root, target)
                     for checkout in checkouts)
    assert first["app"] == "runner" and first["key"] == second["key"]
    assert sizes(first) == sizes(second)
    assert first["build_id"] == second["build_id"]
    image = Path(second["elf"]).read_bytes()
    for place in (*checkouts, runner_scratch.root):
        assert str(place).encode() not in image, place
    manifest = json.loads((Path(second["elf"]).parent.parent.parent / "eor-build.json")
                          .read_text())
    assert manifest["kernels"]["kernel_set"] == "model"
    if target.startswith("ethos"):
        assert first["npu_config"] == target
