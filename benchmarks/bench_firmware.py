"""Firmware build and QEMU lane timings (no timed asserts; goals are printed beside them).

Run: python benchmarks/bench_firmware.py [runs]
Measures, in a fresh temporary scratch: CMake configure, full Ninja build, no-op rebuild,
the QEMU run of the selftest, and the no-op `invoke run` overhead beyond the QEMU process
(goal: under 1 s).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

from orchestrator.firmware.build import build_firmware, config_for_target
from orchestrator.firmware.build.cmake import compile_firmware, configure
from orchestrator.firmware.build.driver import build_dir_for
from orchestrator.firmware.build.tools import resolve_tools
from orchestrator.foundation.paths import Scratch, repo_root, scratch
from orchestrator.setup.toolchain import adopt_system_toolchain
from orchestrator.sim.plan import plan_run
from orchestrator.sim.session import simulate

TARGET = "cortex-m55"
OVERHEAD_GOAL_S = 1.0


def timed(action) -> tuple[float, object]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def bench_build(work: Scratch) -> dict[str, float]:
    """Configure, full build and no-op rebuild of the selftest."""
    config = config_for_target(TARGET)
    tools, build_dir = resolve_tools(work), build_dir_for(work, config)
    configure_s, _ = timed(lambda: configure(config, tools, build_dir))
    full_s, _ = timed(lambda: compile_firmware(config, tools, build_dir))
    noop_s, result = timed(lambda: build_firmware(work, config))
    assert not result.rebuilt, "the no-op rebuild rebuilt something"
    return {"configure_s": configure_s, "full_build_s": full_s, "noop_rebuild_s": noop_s}


def bench_qemu(work: Scratch, runs: int) -> float:
    """Median wall time of the QEMU process running the selftest."""
    plan = plan_run(work, TARGET, "qemu", rerun=f"invoke run --target {TARGET} --app selftest")
    build = build_firmware(work, config_for_target(TARGET))
    seconds = []
    for index in range(runs):
        result = simulate(plan, build.elf, work.root / "bench-runs" / str(index),
                          expected_build_id=build.build_id)
        assert result.verdict.kind == "pass", result.verdict.summary
        seconds.append(result.outcome.seconds)
    return statistics.median(seconds)


def bench_invoke_overhead(work: Scratch, runs: int) -> tuple[float, float]:
    """Median `invoke run` wall time, and its overhead beyond the simulate step."""
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(work.root)}
    walls, overheads = [], []
    for _ in range(runs):
        before = set(work.runs.iterdir())
        wall, done = timed(lambda: subprocess.run(
            [sys.executable, "-m", "invoke", "run", "--target", TARGET, "--app", "selftest",
             "--sim", "qemu"],
            cwd=repo_root(), env=env, capture_output=True, text=True, check=False))
        assert done.returncode == 0, done.stdout + done.stderr
        (run_dir,) = set(work.runs.iterdir()) - before
        simulate_s = json.loads((run_dir / "result.json").read_text())["timings_s"]["simulate"]
        walls.append(wall)
        overheads.append(wall - simulate_s)
    return statistics.median(walls), statistics.median(overheads)


def main(runs: int = 5) -> None:
    """Print every measurement in one table."""
    with tempfile.TemporaryDirectory(prefix="eor-bench-") as root:
        work = scratch(root).ensure()
        adopt_system_toolchain(work)
        numbers = bench_build(work)
        numbers["qemu_run_s"] = bench_qemu(work, runs)
        numbers["invoke_run_wall_s"], numbers["invoke_run_overhead_s"] = bench_invoke_overhead(
            work, runs)
    for name, value in numbers.items():
        goal = f"   (goal < {OVERHEAD_GOAL_S:g} s)" if name == "invoke_run_overhead_s" else ""
        print(f"{name:<24} {value:8.3f} s{goal}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
