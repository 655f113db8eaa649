"""Benchmark the AOT stage: cold compile, cache hit, batch vs separate processes.

    python benchmarks/bench_compile.py [--models add,softmax,convnet]
                                       [--targets ethos-u55-128,ethos-u85-128] [--json]

Every measurement uses a fresh temporary scratch, so nothing is served from an old cache.
Goal (issue #4): batch compile of N models x M targets in one process <= 0.5x the time of
N*M separate cold processes; a cache hit well under one second.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BATCH_GOAL = 0.5

_COMPILE_ONE = """
import sys, time
from orchestrator.aot import compile_model
started = time.perf_counter()
product = compile_model(sys.argv[1], sys.argv[2], scratch_root=sys.argv[3])
first = time.perf_counter() - started
started = time.perf_counter()
again = compile_model(sys.argv[1], sys.argv[2], scratch_root=sys.argv[3])
hit = time.perf_counter() - started
assert again.cached and not product.cached
print(f"{first:.3f} {hit:.4f}")
"""

_COMPILE_BATCH = """
import sys
from orchestrator.aot import compile_many, request_for
from orchestrator.foundation.paths import scratch
pairs = [pair.split("@") for pair in sys.argv[2:]]
items = compile_many([request_for(m, t) for m, t in pairs], scratch(sys.argv[1]),
                     keep_going=False)
assert all(item.ok and not item.product.cached for item in items)
"""

_CACHE_HIT_PROCESS = """
import sys, time
started = time.perf_counter()
from orchestrator.aot import compile_model
product = compile_model(sys.argv[1], sys.argv[2], scratch_root=sys.argv[3])
assert product.cached and "torch" not in sys.modules
print(f"{time.perf_counter() - started:.4f}")
"""


def _python(code: str, *args: str) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, check=True,
                          capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout.strip()


def cold_compile(model: str, target: str) -> dict[str, float]:
    """One fresh process: wall time, in-process compile time, in-process cache-hit time."""
    with tempfile.TemporaryDirectory() as root:
        wall, out = _python(_COMPILE_ONE, model, target, root)
        compile_seconds, hit_seconds = (float(x) for x in out.split())
        process_hit_wall, process_hit = _python(_CACHE_HIT_PROCESS, model, target, root)
    return {"process_wall_s": round(wall, 3), "compile_s": compile_seconds,
            "cache_hit_in_process_s": hit_seconds,
            "cache_hit_fresh_process_s": float(process_hit),
            "cache_hit_fresh_process_wall_s": round(process_hit_wall, 3)}


def separate_processes(pairs: list[tuple[str, str]]) -> float:
    """Total wall time of one cold process per (model, target)."""
    total = 0.0
    for model, target in pairs:
        with tempfile.TemporaryDirectory() as root:
            wall, _ = _python(_COMPILE_ONE, model, target, root)
            total += wall
    return total


def batch_process(pairs: list[tuple[str, str]]) -> float:
    """Wall time of one process compiling every (model, target)."""
    with tempfile.TemporaryDirectory() as root:
        wall, _ = _python(_COMPILE_BATCH, root, *(f"{m}@{t}" for m, t in pairs))
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="add,softmax,convnet")
    parser.add_argument("--targets", default="ethos-u55-128,ethos-u85-128")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    models, targets = args.models.split(","), args.targets.split(",")
    pairs = [(model, target) for model in models for target in targets]
    cold = cold_compile(models[-1], targets[0])
    separate = separate_processes(pairs)
    batch = batch_process(pairs)
    results = {"cold": {"model": models[-1], "target": targets[0], **cold},
               "pairs": len(pairs), "separate_processes_s": round(separate, 3),
               "batch_one_process_s": round(batch, 3),
               "batch_ratio": round(batch / separate, 3), "batch_goal": BATCH_GOAL}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"cold compile {models[-1]} -> {targets[0]}: {cold['process_wall_s']:.2f} s "
              f"process wall ({cold['compile_s']:.2f} s in compile_model)")
        print(f"cache hit: {cold['cache_hit_in_process_s'] * 1000:.1f} ms in process, "
              f"{cold['cache_hit_fresh_process_s'] * 1000:.1f} ms in a fresh process "
              f"(import + lookup; {cold['cache_hit_fresh_process_wall_s']:.2f} s wall)")
        print(f"{len(pairs)} compiles: {separate:.2f} s as separate processes, "
              f"{batch:.2f} s batched in one -> ratio {batch / separate:.2f} "
              f"(goal <= {BATCH_GOAL})")
    return 0 if batch / separate <= BATCH_GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
