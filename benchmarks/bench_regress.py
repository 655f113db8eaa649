"""Regression engine timings: 6 simulator-bound cells at -j1 and -j2, and the build count.

Run: python benchmarks/bench_regress.py [--matrix FILE]
In a fresh temporary scratch (system toolchain adopted): one warm-up run builds every
firmware config, then the same matrix runs at -j1 and at -j2 with builds cached. Printed:
wall time per -j, the speedup (goal >= 1.7x where cells are simulator-bound), and the
number of firmware builds (must equal the number of distinct firmware configs).

The default matrix needs no model runner: six real QEMU self-test cells over two firmware
configs (the second adds 64 bytes of .bss); each runs a firmware that hangs on purpose
until the no-output watchdog (2 s) stops QEMU (xfail, kind timeout), so every cell is
bound by its simulator process.
Pass --matrix to time your own (e.g. model cells once `invoke run --model` exists).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.report.document import LAST_POINTER
from orchestrator.setup.toolchain import adopt_system_toolchain

SPEEDUP_GOAL = 1.7
HANG = '{{ build_options = ["EOR_SELFTEST_BEHAVIOUR=hang"{extra}], idle_timeout_s = 2 }}'
BLOAT = ', "EOR_SELFTEST_BLOAT=64"'
MATRIX = f"""
name = "bench-6"
[defaults]
timeout_s = 20
[options]
{chr(10).join(f"hang{i} = {HANG.format(extra=BLOAT if i > 3 else '')}" for i in range(1, 7))}
[[lanes]]
name = "selftest"
mode = "app"
apps = ["selftest"]
targets = ["cortex-m55"]
options = ["hang1", "hang2", "hang3", "hang4", "hang5", "hang6"]
sim = "qemu"
[[expect]]
options = ["hang*"]
status = "xfail"
kind = "timeout"
reason = "hangs on purpose: the watchdog must stop it"
"""


def run(matrix: Path, root: Path, jobs: int) -> tuple[float, dict]:
    """(wall seconds, report document) of one quiet `invoke regress`."""
    start = time.perf_counter()
    task = RegressTask(str(matrix), jobs=jobs, quiet=True,
                       baselines=str(root / "bench.baselines.json"))
    regress_command(task, scratch_root=str(root))
    seconds = time.perf_counter() - start
    pointer = json.loads((root / "runs" / LAST_POINTER).read_text())
    return seconds, json.loads(Path(pointer["report"]).read_text())


def matrix_argument(doc: str | None) -> Path | None:
    """--matrix FILE (None: the six default cells)."""
    return bench_arguments(doc)[0]


def bench_arguments(doc: str | None) -> tuple[Path | None, Path | None]:
    """--matrix FILE (None: the six default cells) and --sources DIR (None: no model cells)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--matrix", type=Path, help="matrix file (default: 6 QEMU cells)")
    parser.add_argument("--sources", type=Path, help="a directory holding executorch/, "
                        "cmsis-nn/, ... (set up in the fresh scratch: model cells need them)")
    args = parser.parse_args()
    return args.matrix, args.sources


def set_up_sources(root: Path, sources: Path) -> None:
    """`invoke setup --only <the trees found> --source NAME=DIR --allow-unpinned` in `root`."""
    from orchestrator.runner.sources import trees_under
    from orchestrator.setup.catalogue import load_setup_catalogue
    from orchestrator.setup.installation import run_setup
    from orchestrator.setup.options import SetupOptions, SourceRequest

    trees = trees_under(sources.resolve())
    options = SetupOptions(only=tuple(trees), allow_unpinned=True,
                           sources={name: SourceRequest(path) for name, path in trees.items()})
    run_setup(scratch(root), options, load_setup_catalogue())


def bench_scratch(tmp: Path, matrix: Path | None,
                  sources: Path | None = None) -> tuple[Path, Path]:
    """A fresh scratch (system toolchain adopted, `sources` set up) and the matrix (default:
    the 6 cells)."""
    root = tmp / "scratch"
    adopt_system_toolchain(scratch(root).ensure())
    if sources is not None:
        set_up_sources(root, sources)
    if matrix is None:
        matrix = tmp / "bench.toml"
        matrix.write_text(MATRIX)
    return root, matrix


def main() -> None:
    given = matrix_argument(__doc__)
    with tempfile.TemporaryDirectory(prefix="bench-regress-") as tmp:
        root, matrix = bench_scratch(Path(tmp), given)
        warm_s, warm = run(matrix, root, jobs=2)
        configs = {build["key"] for build in warm["builds"]}
        built = [build for build in warm["builds"] if not build["cached"]]
        print(f"cells: {warm['counts']['total']}  outcomes: "
              f"{ {k: v for k, v in warm['counts'].items() if v and k != 'total'} }")
        print(f"warm-up (builds + compiles) : {warm_s:6.1f} s")
        print(f"firmware builds             : {len(built)} for {len(configs)} distinct "
              f"configs ({'OK' if len(built) == len(configs) else 'MISMATCH'})")
        serial_s, serial = run(matrix, root, jobs=1)
        parallel_s, parallel = run(matrix, root, jobs=2)
        same = ([(c["key"], c["outcome"], c["metrics"]) for c in serial["cells"]] ==
                [(c["key"], c["outcome"], c["metrics"]) for c in parallel["cells"]])
        sim_1, sim_2 = serial["phases_s"]["simulate"], parallel["phases_s"]["simulate"]
        print(f"-j1 wall / simulate phase   : {serial_s:6.1f} s / {sim_1:6.1f} s")
        print(f"-j2 wall / simulate phase   : {parallel_s:6.1f} s / {sim_2:6.1f} s")
        print(f"speedup wall / simulate     : {serial_s / parallel_s:6.2f} x / "
              f"{sim_1 / sim_2:6.2f} x (goal >= {SPEEDUP_GOAL} x where simulator-bound)")
        print(f"-j2 results == -j1 results  : {same}")


if __name__ == "__main__":
    main()
