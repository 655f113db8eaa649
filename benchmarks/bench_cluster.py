"""A regression matrix on a local Dask cluster: 1 worker vs 2 workers of one thread each.

Run: python benchmarks/bench_cluster.py [--matrix FILE] [--sources DIR]
(needs pip install -e '.[cluster]'; --sources: a directory holding executorch/, cmsis-nn/, ...
for matrices with model cells, e.g. --matrix benchmarks/matrices/qemu-all.toml, 15 cells)
In a fresh temporary scratch (system toolchain adopted): a warm-up local run builds every
firmware config; then the same matrix runs locally at -j1 (the reference) and on a local
cluster (`--workers 1`, `--workers 2`). Printed per run: wall time, the time to the first
cell's result, the speed-up of 2 workers over 1 (wall, and from the first cell's start on),
and the scheduler's overhead per cell:
(wall - time to first cell start - summed simulate time / workers) / cells, i.e. what the
cluster adds to each cell beyond its simulator (starting the cluster excluded; it is in the
time to first cell).

The default matrix is bench_regress's: six real QEMU self-test cells that hang on purpose
until the 2 s no-output watchdog stops QEMU (xfail, kind timeout): simulator-bound cells.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from orchestrator.commands.regress import regress_command
from orchestrator.options.regress import RegressTask
from orchestrator.regress.report.document import LAST_POINTER

sys.path.insert(0, str(Path(__file__).parent))
from bench_regress import bench_arguments, bench_scratch  # noqa: E402


def run(matrix: Path, root: Path, **flags: object) -> tuple[float, float, dict]:
    """(wall seconds, seconds to the first cell's result, report) of one quiet regress."""
    start_wall = time.time()
    start = time.perf_counter()
    task = RegressTask(str(matrix), quiet=True, baselines=str(root / "bench.baselines.json"),
                       **flags)
    regress_command(task, scratch_root=str(root))
    seconds = time.perf_counter() - start
    pointer = json.loads((root / "runs" / LAST_POINTER).read_text())
    document = json.loads(Path(pointer["report"]).read_text())
    first = min(Path(cell["out_dir"], "result.json").stat().st_mtime
                for cell in document["cells"] if cell["outcome"] != "skipped")
    return seconds, first - start_wall, document


def outcomes(document: dict) -> dict[str, int]:
    return {k: v for k, v in document["counts"].items() if v and k != "total"}


def simulate_total(document: dict) -> float:
    return sum(cell["seconds"].get("simulate", 0.0) for cell in document["cells"])


def main() -> None:
    given, sources = bench_arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as tmp:
        root, matrix = bench_scratch(Path(tmp), given, sources)
        warm_s, _, warm = run(matrix, root, jobs=2)
        cells = warm["counts"]["total"]
        print(f"cells: {cells}  warm-up (builds, local -j2): {warm_s:.1f} s")
        local_s, local_first, local = run(matrix, root, jobs=1)
        print(f"local -j1          : {local_s:6.1f} s  first cell after {local_first:5.1f} s  "
              f"(simulate total {simulate_total(local):.1f} s)")
        walls, steady = {}, {}
        for workers in (1, 2):
            wall, first, document = run(matrix, root, workers=workers)
            walls[workers] = wall
            simulated = simulate_total(document)
            first_start = first - max(cell["seconds"].get("simulate", 0.0)
                                      for cell in document["cells"])
            steady[workers] = wall - max(first_start, 0.0)
            overhead = (steady[workers] - simulated / workers) / cells
            assert all(c["cluster"]["products"] == "shared" for c in document["cells"])
            print(f"cluster {workers} worker{'s' if workers > 1 else ' '}: {wall:6.1f} s  "
                  f"first cell after {first:5.1f} s  overhead per cell {overhead:5.2f} s  "
                  f"outcomes {outcomes(document)}")
        print(f"speed-up 2 workers / 1 worker: {walls[1] / walls[2]:.2f}x wall, "
              f"{steady[1] / steady[2]:.2f}x once the first cell started (cluster start-up "
              "left out)")


if __name__ == "__main__":
    main()
