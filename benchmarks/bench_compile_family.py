"""Benchmark a family column: one full compile, then every other configuration of the family
(Vela on the lowering's partitions and the .pte assembled, no new lowering).

    python benchmarks/bench_compile_family.py [--models mv2,benchmarks/models/ds_cnn.py,...]
                                              [--families u85,u55] [--json]

Each column runs in one fresh process with a fresh temporary scratch: the first configuration
is a full compile (its time includes importing torch and executorch, as `invoke compile`'s
does), the others are configurations of its lowering. Goals (issue #33): each extra
configuration <= 3 s; the whole column <= 1.3x the one full compile.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = "benchmarks/models/ds_cnn.py,mv2,benchmarks/models/mobilenet_v3_small.py"
FAMILIES = {"u85": [f"ethos-u85-{macs}" for macs in (128, 256, 512, 1024, 2048)],
            "u55": [f"ethos-u55-{macs}" for macs in (32, 64, 128, 256)]}
EXTRA_GOAL_S = 3.0
COLUMN_GOAL = 1.3

_COLUMN = """
import json, sys, time
from orchestrator.aot import compile_model
model, root, targets = sys.argv[1], sys.argv[2], sys.argv[3:]
seconds = []
for target in targets:
    started = time.perf_counter()
    product = compile_model(model, target, scratch_root=root)
    seconds.append(round(time.perf_counter() - started, 3))
    assert not product.cached
    configured = product.manifest["lowering"].get("configured_seconds") is not None
    assert configured == (target != targets[0]), (target, product.manifest["lowering"])
print(json.dumps(seconds))
"""


def column(model: str, targets: list[str]) -> dict[str, object]:
    """One process, fresh scratch: the seconds of each configuration in order."""
    with tempfile.TemporaryDirectory() as root:
        done = subprocess.run([sys.executable, "-c", _COLUMN, model, root, *targets],
                              cwd=REPO, capture_output=True, text=True,
                              env={**os.environ, "ETHOSU_ORCH_QUIET": "1"})
    if done.returncode != 0:
        raise SystemExit(f"column {model} {targets[0]}... failed:\n{done.stderr[-3000:]}")
    seconds = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{model}: {seconds}", file=sys.stderr, flush=True)
    full, extras = seconds[0], seconds[1:]
    return {"targets": targets, "seconds": seconds, "full_s": full,
            "max_extra_s": max(extras), "column_s": round(sum(seconds), 3),
            "column_ratio": round(sum(seconds) / full, 3),
            "meets_goals": max(extras) <= EXTRA_GOAL_S and sum(seconds) / full <= COLUMN_GOAL}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--families", default="u85,u55")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args()
    results = {model: {family: column(model, FAMILIES[family])
                       for family in args.families.split(",")}
               for model in args.models.split(",")}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for model, columns in results.items():
            for family, found in columns.items():
                print(f"{Path(model).stem} {family}: full {found['full_s']:.1f} s, extra "
                      f"configurations {found['seconds'][1:]} s (max {found['max_extra_s']:.2f} "
                      f"s, goal <= {EXTRA_GOAL_S}), column {found['column_s']:.1f} s = "
                      f"{found['column_ratio']:.2f}x one full compile (goal <= {COLUMN_GOAL})")
    return 0 if all(found["meets_goals"] for columns in results.values()
                    for found in columns.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
