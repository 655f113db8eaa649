"""Benchmark toolsets: installing each one's environment into a fresh scratch, and the A/B of
the small matrix (examples/regress/toolsets.toml) against the pinned stack, products cold.

    python benchmarks/bench_toolsets.py [--toolsets et-1.5.1,vela-5.2.0] [--json]

Installs come from the registry (or ETHOSU_ORCH_MIRROR); each A/B runs in one fresh scratch
(so both toolsets compile everything: the pinned stack in this process, the other through its
environment's worker). Printed per toolset: install seconds, the environment's size (MB),
A/B seconds, how many cells were exact under both, agreed bit for bit, and the Vela
total-cycle ratios (B/A), with the versions that produced them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from orchestrator.foundation.paths import scratch  # noqa: E402
from orchestrator.regress.plan.matrix import expand, load_matrix  # noqa: E402
from orchestrator.regress.toolset_ab import run_ab  # noqa: E402
from orchestrator.setup.options import SetupOptions  # noqa: E402
from orchestrator.setup.toolset_install import install_toolset  # noqa: E402
from orchestrator.targets import load_catalogue  # noqa: E402
from orchestrator.toolsets.catalogue import default_toolset, find_toolset  # noqa: E402
from orchestrator.toolsets.environment import toolset_directory  # noqa: E402

MATRIX = REPO / "examples" / "regress" / "toolsets.toml"


def _size_mb(directory: Path) -> float:
    """The environment's size on disk (each file once; the tool's own packages are not in it:
    the environment is layered on the tool's interpreter)."""
    seen: set[int] = set()
    total = 0
    for path in directory.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.stat().st_ino not in seen:
            seen.add(path.stat().st_ino)
            total += path.stat().st_size
    return round(total / 1e6, 1)


def measure(name: str) -> dict[str, Any]:
    toolset = find_toolset(name)
    with tempfile.TemporaryDirectory() as root:
        where = scratch(root).ensure()
        started = time.perf_counter()
        installed = install_toolset(toolset, SetupOptions(), where)
        install_s = time.perf_counter() - started
        size_mb = _size_mb(toolset_directory(toolset, where))
        cells = expand(load_matrix(MATRIX), load_catalogue())
        started = time.perf_counter()
        document = run_ab(cells, (default_toolset(), toolset), where, None)
        ab_s = time.perf_counter() - started
    entries = document["cells"]
    return {"toolset": toolset.name, "versions": installed.versions,
            "install_s": round(install_s, 1), "size_mb": size_mb, "ab_s": round(ab_s, 1),
            "cells": len(entries),
            "exact_both": sum(e["a"]["exact"] is True and e["b"]["exact"] is True
                              for e in entries),
            "agree": sum(bool(e.get("outputs", {}).get("agree")) for e in entries),
            "cycle_ratios": {e["key"]: e.get("vela_estimates", {}).get("total_cycles", {})
                             .get("ratio") for e in entries}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--toolsets", default="et-1.5.1,vela-5.2.0")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [measure(name) for name in args.toolsets.split(",")]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    for result in results:
        print(f"{result['toolset']}: install {result['install_s']} s, environment "
              f"{result['size_mb']} MB, A/B vs "
              f"{default_toolset().name} {result['ab_s']} s, {result['cells']} cells, exact "
              f"under both {result['exact_both']}, bit for bit {result['agree']}")
        for key, ratio in result["cycle_ratios"].items():
            print(f"    {key:<34} Vela total cycles B/A x{ratio}")
        print(f"    versions: {result['versions']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
