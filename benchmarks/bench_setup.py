"""Benchmark `invoke setup`'s no-op path: a second run with everything installed.

    python benchmarks/bench_setup.py [--scratch DIR] [--only toolchain] [-- extra setup flags]

Runs `invoke setup --only ...` once to install (not timed), then times REPEAT further runs
(whole process, as a user sees it). Goal (issue #3): a second run checks and exits in under
2 seconds, downloading and unpacking nothing. Without --scratch a fresh temporary scratch
is used; pass the scratch of a full setup to measure sources/FVPs too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 2.0
REPEAT = 5


def setup_run(scratch: str, only: str, extra: list[str]) -> float:
    """Wall time of one `invoke setup` process; fails loudly if setup fails."""
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": scratch}
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "invoke", "setup", "--only", only, *extra], cwd=REPO,
                   env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> int:
    """Install once, then time the no-op runs and compare with the goal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch")
    parser.add_argument("--only", default="toolchain")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()
    scratch = args.scratch or tempfile.mkdtemp(prefix="bench-setup-")
    first = setup_run(scratch, args.only, args.extra)
    times = [setup_run(scratch, args.only, args.extra) for _ in range(REPEAT)]
    result = {"only": args.only, "first_s": round(first, 3),
              "noop_median_s": round(statistics.median(times), 3),
              "noop_max_s": round(max(times), 3), "goal_s": GOAL_SECONDS,
              "meets_goal": max(times) < GOAL_SECONDS}
    print(json.dumps(result, indent=2) if args.json else
          f"setup --only {args.only}: first {first:.2f} s, no-op median "
          f"{result['noop_median_s']:.2f} s (max {result['noop_max_s']:.2f} s, goal < "
          f"{GOAL_SECONDS} s) -> {'ok' if result['meets_goal'] else 'MISSED'}")
    return 0 if result["meets_goal"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
