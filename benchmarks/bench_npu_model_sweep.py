"""The NPU-model sweep's total time (issue #14): every single-op, activation, elementwise,
geometry, int16, hand-built-graph and architecture case on every U55/U65 configuration,
NPU model vs TOSA reference, bit for bit, plus the decoder listing checks.

    python benchmarks/bench_npu_model_sweep.py [--scratch DIR] [-k EXPRESSION] [--json]

--scratch: where compiled products are cached (ETHOSU_ORCH_TEST_NPU_MODEL_SCRATCH; default the
repo's scratch/). A cold scratch measures the Vela compiles too; a warm one measures the
checks: the report says how many products were compiled during the run.
Prints per test file: tests, passed/xfailed/skipped/failed, seconds; then the total.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCRATCH_VARIABLE = "ETHOSU_ORCH_TEST_NPU_MODEL_SCRATCH"


def products(scratch: Path) -> int:
    models = scratch / "models"
    return sum(1 for _ in models.iterdir()) if models.is_dir() else 0


def outcome(case: ElementTree.Element) -> str:
    for child in case:
        if child.tag == "skipped":
            return "xfailed" if child.get("type") == "pytest.xfail" else "skipped"
        if child.tag in ("failure", "error"):
            return "failed"
    return "passed"


def per_file(report: Path) -> dict[str, dict[str, Any]]:
    files: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(float))
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        name = case.get("classname", "").rsplit(".", 1)[-1] + ".py"
        files[name]["tests"] += 1
        files[name][outcome(case)] += 1
        files[name]["seconds"] += float(case.get("time", 0.0))
    return {name: dict(counts) for name, counts in sorted(files.items())}


def run_sweep(scratch: Path, expression: str | None) -> tuple[dict[str, Any], float]:
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "sweep.xml"
        command = [sys.executable, "-m", "pytest", "-q", "-m", "sweep", "tests/npu_model",
                   "-p", "no:cacheprovider", f"--junitxml={report}"]
        if expression:
            command += ["-k", expression]
        started = time.perf_counter()
        subprocess.run(command, cwd=ROOT, env={**os.environ, SCRATCH_VARIABLE: str(scratch)},
                       check=False, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - started
        return per_file(report), seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scratch", type=Path, default=ROOT / "scratch")
    parser.add_argument("-k", dest="expression")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    before = products(args.scratch)
    files, seconds = run_sweep(args.scratch, args.expression)
    compiled = products(args.scratch) - before
    if args.json:
        print(json.dumps({"files": files, "seconds": round(seconds, 1), "compiled": compiled}))
        return
    for name, counts in files.items():
        states = ", ".join(f"{int(counts[k])} {k}" for k in
                           ("passed", "xfailed", "skipped", "failed") if counts.get(k))
        print(f"{name:32} {int(counts['tests']):5} tests  {states:40} {counts['seconds']:7.1f} s")
    total = sum(int(c["tests"]) for c in files.values())
    print(f"total: {total} tests in {seconds:.0f} s wall ({compiled} products compiled "
          f"during the run; 0 means every compile came from the cache)")


if __name__ == "__main__":
    main()
