"""While a model compiles, the runtime builds beside it (a thread; the build's work runs in
compiler processes), and the seconds it took are returned as their own stage; a cached product
starts nothing beside it; a build error in the thread is not raised there (the runner build
that follows meets it and reports it). The two stages are replaced by steps that record when
they ran (the real run: benchmarks/bench_cold_start.py --headline)."""

from __future__ import annotations

import contextlib
import io
import threading
import time
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.progress import LineReporter, step, using
from orchestrator.runner import overlap
from orchestrator.runner.config import memory_mode_of, pools_for
from orchestrator.runner.firmware import RunnerOptions
from orchestrator.targets import load_catalogue

TARGET = load_catalogue().target("ethos-u85-128")
OPTIONS = RunnerOptions(memory_mode_of(TARGET, None), pools_for(memory_mode_of(TARGET, None)),
                        model_ops=("aten::add.out",))


def _recorded(spans: dict[str, tuple[float, float]], name: str, result: object = None,
              error: Exception | None = None):
    def run(*args: object) -> object:
        started = time.monotonic()
        time.sleep(0.3)
        spans[name] = (started, time.monotonic())
        if error is not None:
            raise error
        return result
    return run


def test_the_runtime_builds_while_the_model_compiles(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    spans: dict[str, tuple[float, float]] = {}
    seen: list[RunnerOptions] = []
    build = _recorded(spans, "runtime")
    monkeypatch.setattr(overlap, "prebuild_runtime",
                        lambda work, target, options, sources: (seen.append(options),
                                                                build()))
    product, seconds = overlap.compile_beside_runtime(
        _recorded(spans, "compile", "product"), False, Scratch(tmp_path), TARGET, OPTIONS, None)
    assert product == "product" and seconds is not None and seconds >= 0.3
    (compile_start, compile_end), (build_start, build_end) = spans["compile"], spans["runtime"]
    assert build_start < compile_end and compile_start < build_end     # side by side
    assert seen[0].model_ops == ()     # the compiled program (its ops) does not exist yet
    assert not any(t.name == "runtime-prebuild" for t in threading.enumerate())   # joined


def test_a_cached_product_starts_no_build_beside_it(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlap, "prebuild_runtime", lambda *args: pytest.fail("built"))
    assert overlap.compile_beside_runtime(lambda: "product", True, Scratch(tmp_path), TARGET,
                                          OPTIONS, None) == ("product", None)


def test_a_build_error_beside_the_compile_is_left_to_the_runner_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spans: dict[str, tuple[float, float]] = {}
    failing = _recorded(spans, "runtime", error=OrchestratorError("no cmake", "install it"))
    monkeypatch.setattr(overlap, "prebuild_runtime", lambda *args: failing())
    product, seconds = overlap.compile_beside_runtime(lambda: "product", False, Scratch(tmp_path),
                                                      TARGET, OPTIONS, None)
    assert product == "product" and seconds is not None


def test_the_builds_progress_is_not_captured_by_the_compiles_log(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    log = io.StringIO()

    def build(*args: object) -> None:
        with step("build the ExecuTorch runtime"):
            time.sleep(0.3)

    def compile_product() -> str:
        with contextlib.redirect_stderr(log):          # as a compile keeps its log
            time.sleep(0.6)
        return "product"

    monkeypatch.setattr(overlap, "prebuild_runtime", build)
    with using(LineReporter()):
        overlap.compile_beside_runtime(compile_product, False, Scratch(tmp_path), TARGET,
                                       OPTIONS, None)
    assert "build the ExecuTorch runtime done" in capsys.readouterr().err
    assert "eor:" not in log.getvalue()
