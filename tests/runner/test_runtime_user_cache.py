"""The runtime build lives in the user-level cache, keyed by content: a second scratch (or a
fresh clone: configure names no path of the checkout or the scratch) finds it configured and
only asks ninja whether anything changed; another compiler binary or recipe is another build;
ETHOSU_ORCH_CACHE_DIR=0 keeps the build in the scratch. CMake is replaced by a step that
records what ran (the real build: tests/runner/test_runner_qemu.py and the cold benchmark)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from orchestrator.firmware.build.toolchain import Compilers
from orchestrator.foundation.cache_check import RECORD, damage
from orchestrator.foundation.paths import USER_CACHE_ENV, Scratch, repo_root
from orchestrator.foundation.progress import CommandRun
from orchestrator.runner import runtime
from orchestrator.runner.runtime import RuntimeConfig, build_runtime, configure_args, runtime_key
from orchestrator.runner.runtime_recipe import staged_recipe
from orchestrator.runner.sources import RuntimeSources
from orchestrator.targets.runner_data import ALL

CONFIG = RuntimeConfig("cortex-m55", "Release", "all", ALL)


@pytest.fixture
def steps(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[str]]]:
    ran: list[tuple[str, list[str]]] = []

    def step(args: list[str], log: Path, what: str, env: object) -> CommandRun:
        ran.append((what, list(args)))
        return CommandRun(0, "")

    monkeypatch.setattr(runtime, "run_step", step)
    return ran


UP_TO_DATE = CommandRun(0, "ninja: no work to do.\n")
BUILT = CommandRun(0, "[1/1] Linking CXX static library libexecutorch_core.a\n")


@pytest.fixture
def compilers(tmp_path: Path) -> Compilers:
    """A compiler 'binary' of our own, so its digest is under the test's control."""
    gcc = tmp_path / "bin" / "arm-none-eabi-gcc"
    gcc.parent.mkdir()
    gcc.write_bytes(b"gcc 12.2.1")
    return Compilers(gcc, gcc.with_name("arm-none-eabi-g++"), "cortex-m55")


def _sources(tmp_path: Path) -> RuntimeSources:
    return RuntimeSources(tmp_path / "executorch", tmp_path / "cmsis-nn")


def test_a_second_scratch_reuses_the_configured_build(tmp_path, monkeypatch, steps, compilers):
    cache = tmp_path / "cache"
    monkeypatch.setenv(USER_CACHE_ENV, str(cache))
    first = build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    second = build_runtime(Scratch(tmp_path / "two"), CONFIG, _sources(tmp_path), compilers)
    assert first.build_dir == second.build_dir and first.build_dir.parent == cache / "runtime"
    assert first.configured and not second.configured
    assert [what for what, _ in steps] == ["configure the ExecuTorch runtime",
                                           "build the ExecuTorch runtime",
                                           "build the ExecuTorch runtime"]
    assert not (tmp_path / "one" / "build").exists()


def test_configure_names_no_path_of_the_checkout_or_scratch(tmp_path, monkeypatch, compilers):
    cache = tmp_path / "cache"
    recipe = staged_recipe(cache)
    args = configure_args(CONFIG, _sources(tmp_path), compilers,
                          cache / "runtime" / "runtime-x", recipe=recipe)
    # the cmake and ninja binaries are pip's: they live in the tool's venv, which may sit in
    # the checkout (.ci/run's .venv); every other argument names no checkout path
    tools = {args[0]} | {arg for arg in args if arg.startswith("-DCMAKE_MAKE_PROGRAM=")}
    assert not any(str(repo_root()) in arg for arg in args if arg not in tools)
    assert args[args.index("-S") + 1] == str(recipe.project)
    assert (recipe.project / "CMakeLists.txt").read_bytes() == (
        repo_root() / "firmware" / "apps" / "runner" / "runtime" / "CMakeLists.txt").read_bytes()
    assert staged_recipe(cache) == recipe     # staged once, by content


def test_another_compiler_binary_is_another_build(tmp_path, compilers):
    sources = _sources(tmp_path)
    before = runtime_key(CONFIG, sources, compilers, "recipe")
    compilers.gcc.write_bytes(b"gcc 13.3.0")    # upgraded in place
    assert runtime_key(CONFIG, sources, compilers, "recipe") != before
    assert runtime_key(CONFIG, sources, compilers, "other recipe") != before


def test_cache_dir_0_keeps_the_build_in_the_scratch(tmp_path, monkeypatch, steps, compilers):
    monkeypatch.setenv(USER_CACHE_ENV, "0")
    built = build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    assert built.build_dir.parent == tmp_path / "one" / "build"
    stamp = json.loads((built.build_dir / runtime.STAMP).read_text())
    assert str(repo_root()) in " ".join(stamp["args"])    # the checkout's own project
    shutil.rmtree(tmp_path / "one")


def test_a_flipped_byte_in_a_built_library_is_named_and_rebuilt(tmp_path, monkeypatch,
                                                                  compilers, capsys):
    """The build's libraries are recorded after each build; one that differs is removed
    before the next (ninja makes a missing output again: here the step writes it)."""
    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path / "cache"))
    good = bytes(range(256)) * 64
    seen: list[bool] = []

    def step(args: list[str], log: Path, what: str, env: object) -> CommandRun:
        library = Path(args[args.index("-C") + 1]) / "libexecutorch_core.a" \
            if "-C" in args else None
        if library is None:
            return BUILT
        seen.append(library.exists())
        if library.exists():
            return UP_TO_DATE   # the record is kept as it was, and still catches the flip
        library.write_bytes(good)
        return BUILT

    monkeypatch.setattr(runtime, "run_step", step)
    built = build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    library = built.build_dir / "libexecutorch_core.a"
    data = bytearray(library.read_bytes())
    data[100] ^= 0x01
    library.write_bytes(bytes(data))
    capsys.readouterr()
    build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    err = capsys.readouterr().err
    assert f"{built.build_dir.name}/libexecutorch_core.a differs from its manifest: rebuilt" \
        in err
    assert seen == [False, False] and library.read_bytes() == good
    build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    assert seen == [False, False, True] and capsys.readouterr().err == ""


def test_an_up_to_date_build_keeps_its_record_and_a_missing_record_is_made(tmp_path, monkeypatch,
                                                                          compilers):
    """A warm run's build, which ninja found up to date, does not walk the build tree to
    record its libraries again (issue 44): the record is left as it was. A build that has no
    record gets one even then."""
    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path / "cache"))
    answers = iter([BUILT, BUILT, UP_TO_DATE, UP_TO_DATE])

    def step(args: list[str], log: Path, what: str, env: object) -> CommandRun:
        if "-C" in args:
            (Path(args[args.index("-C") + 1]) / "libexecutorch_core.a").write_bytes(b"lib")
        return next(answers)

    monkeypatch.setattr(runtime, "run_step", step)
    built = build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    record = built.build_dir / RECORD
    older = record.stat().st_mtime_ns - 10**9
    os.utime(record, ns=(older, older))        # a rewrite would move it
    build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    assert record.stat().st_mtime_ns == older and damage(built.build_dir, full=True) is None
    record.unlink()
    build_runtime(Scratch(tmp_path / "one"), CONFIG, _sources(tmp_path), compilers)
    assert record.is_file() and damage(built.build_dir, full=True) is None
