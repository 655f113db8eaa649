"""Two processes sharing a scratch (clones, regress workers) that build the same runtime take
turns: CMake configures run one at a time in one build directory (two at once corrupted its
cache: "This should not have happened"). flock locks are per open file, so two threads stand
in for two processes; CMake is replaced by a step that records when it ran."""

from __future__ import annotations

import threading
import time
from itertools import pairwise
from pathlib import Path

import pytest

from orchestrator.firmware.build.toolchain import Compilers
from orchestrator.foundation.paths import USER_CACHE_ENV, Scratch
from orchestrator.foundation.progress import CommandRun
from orchestrator.runner import runtime
from orchestrator.runner.runtime import RuntimeConfig, build_runtime
from orchestrator.runner.sources import RuntimeSources
from orchestrator.targets.runner_data import ALL


def test_two_builds_of_one_runtime_take_turns(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    spans: list[tuple[float, float, str]] = []

    def recorded_step(args: list[str], log: Path, what: str, env: object) -> CommandRun:
        started = time.monotonic()
        time.sleep(0.2)
        spans.append((started, time.monotonic(), what))
        return CommandRun(0, "")

    monkeypatch.setattr(runtime, "run_step", recorded_step)
    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path / "cache"))
    scratch = Scratch(tmp_path / "scratch")
    sources = RuntimeSources(tmp_path / "executorch", tmp_path / "cmsis-nn")
    config = RuntimeConfig("cortex-m55", "Release", "all", ALL)
    toolchain = Compilers(Path("/usr/bin/arm-none-eabi-gcc"), Path("/usr/bin/arm-none-eabi-g++"),
                          "cortex-m55")
    builds = [threading.Thread(target=build_runtime, args=(scratch, config, sources, toolchain))
              for _ in range(2)]
    for build in builds:
        build.start()
    for build in builds:
        build.join()
    spans.sort()
    assert [what for *_, what in spans] == [
        "configure the ExecuTorch runtime", "build the ExecuTorch runtime",
        "build the ExecuTorch runtime"]   # the second build found the first's configure
    assert all(earlier[1] <= later[0] for earlier, later in pairwise(spans))
