"""The user-level runtime build cache filled by two processes at once, and by one killed in
the middle of its build: real processes (flock is per open file), CMake replaced inside each
by a step that logs when it ran and writes the library ninja would (the real build:
tests/runner/test_runner_qemu.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from orchestrator.foundation.cache_check import RECORD, damage
from orchestrator.foundation.paths import USER_CACHE_ENV

BUILDER = """
import json, sys, time
from pathlib import Path
from orchestrator.firmware.build.toolchain import Compilers
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.progress import CommandRun
from orchestrator.runner import runtime
from orchestrator.runner.sources import RuntimeSources
from orchestrator.targets.runner_data import ALL

log, pause, root = Path(sys.argv[1]), float(sys.argv[2]), Path(sys.argv[3])

def step(args, _log, what, env):
    with log.open("a") as handle:
        handle.write(json.dumps(["begin", what, time.time()]) + "\\n")
    time.sleep(pause)
    if "-C" in args:
        library = Path(args[args.index("-C") + 1]) / "libexecutorch_core.a"
        library.write_bytes(b"!<arch>\\n" * 4096)
    with log.open("a") as handle:
        handle.write(json.dumps(["end", what, time.time()]) + "\\n")
    return CommandRun(0, "[1/1] done\\n")

runtime.run_step = step
gcc = root / "bin" / "arm-none-eabi-gcc"
built = runtime.build_runtime(
    Scratch(root / "scratch"), runtime.RuntimeConfig("cortex-m55", "Release", "all", ALL),
    RuntimeSources(root / "executorch", root / "cmsis-nn"),
    Compilers(gcc, gcc.with_name("arm-none-eabi-g++"), "cortex-m55"))
print(built.build_dir)
"""


def _start(tmp_path: Path, pause: float) -> subprocess.Popen[str]:
    env = {**os.environ, USER_CACHE_ENV: str(tmp_path / "cache")}
    return subprocess.Popen([sys.executable, "-c", BUILDER, str(tmp_path / "steps.log"),
                             str(pause), str(tmp_path)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _compiler(tmp_path: Path) -> None:
    gcc = tmp_path / "bin" / "arm-none-eabi-gcc"
    gcc.parent.mkdir()
    gcc.write_bytes(b"gcc 12.2.1")


def _steps(tmp_path: Path) -> list[list[object]]:
    return [json.loads(line) for line in (tmp_path / "steps.log").read_text().splitlines()]


def test_two_first_time_fills_take_turns_and_configure_once(tmp_path):
    _compiler(tmp_path)
    first, second = _start(tmp_path, 0.5), _start(tmp_path, 0.5)
    outs = [process.communicate(timeout=120) for process in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outs
    directories = {out.strip().splitlines()[-1] for out, _err in outs}
    assert len(directories) == 1
    build = Path(directories.pop())
    steps = _steps(tmp_path)
    whats = [what for kind, what, _at in steps if kind == "begin"]
    assert whats.count("configure the ExecuTorch runtime") == 1
    assert whats.count("build the ExecuTorch runtime") == 2
    for (kind, _what, _at), (next_kind, _next, _next_at) in zip(steps, steps[1:], strict=False):
        assert kind != next_kind, f"two steps overlapped: {steps}"
    assert damage(build, full=True) is None and (build / RECORD).is_file()


def test_a_fill_killed_mid_build_leaves_the_cache_for_the_next_to_finish(tmp_path):
    _compiler(tmp_path)
    victim = _start(tmp_path, 30)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (tmp_path / "steps.log").is_file():
        time.sleep(0.05)
    time.sleep(0.2)
    victim.send_signal(signal.SIGKILL)
    victim.communicate(timeout=30)
    assert _steps(tmp_path)[-1][0] == "begin", "the victim was not killed inside a step"
    survivor = _start(tmp_path, 0.1)
    out, err = survivor.communicate(timeout=120)
    assert survivor.returncode == 0, err
    build = Path(out.strip().splitlines()[-1])
    whats = [what for kind, what, _at in _steps(tmp_path) if kind == "begin"]
    assert whats == ["configure the ExecuTorch runtime", "configure the ExecuTorch runtime",
                     "build the ExecuTorch runtime"], "the survivor did not configure again"
    assert damage(build, full=True) is None
