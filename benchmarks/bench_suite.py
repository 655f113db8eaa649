"""Per model and target: our compile beside upstream's `aot_arm_compiler` on the same model
file, and a QEMU run end to end. Prints one table (or JSON with --json).

    python benchmarks/bench_suite.py --executorch /path/to/executorch-v1.4.1 \\
        [--models benchmarks/models/mobilenet_v3_small.py,benchmarks/models/ds_cnn.py] \\
        [--targets ethos-u85-128,ethos-u55-128] [--qemu-scratch DIR] [--json]

- ours: `compile_model(model, target)` in a fresh process and a fresh scratch (quantize int8,
  delegate, Vela: the tool's defaults), wall time of the process (imports included);
- upstream: `python -m examples.arm.aot_arm_compiler --model_name=FILE --target=T --delegate
  --quantize --output=...` from the ExecuTorch tree given (its backends/arm scripts, the
  installed executorch package underneath), wall time of the process;
- QEMU: `invoke run --model FILE --target T --sim qemu --json` in --qemu-scratch (a scratch
  with `invoke setup --only toolchain,sources` done; leave it out to skip), wall time of the
  process and the run's own stages (compile, builds, simulate). The compile there is cached
  after the first run, so a second invocation shows the run without it.
Both compiles run one after the other, never side by side; on a shared machine the load
average (printed) matters more than the difference of a few seconds.

Measured at 29a396f (torch 2.13.0+cpu, executorch 1.4.1, ethos-u-vela 5.1.0) on the shared
2-core machine at load average 7 (other helpers' compiles and tests beside it, so only the
ratio means much), `python benchmarks/bench_suite.py --executorch /work/upstream/executorch
--models benchmarks/models/ds_cnn.py,benchmarks/models/mobilenet_v3_small.py --targets
ethos-u85-128 --qemu-scratch /work/bench-scratch`:

| model | target | ours s | upstream s | ours/upstream | QEMU end to end s (cold / warm) |
|---|---|---|---|---|---|
| ds_cnn.py | ethos-u85-128 | 114.3 | 106.5 | 1.07 | 103.3 / 38.4 |
| mobilenet_v3_small.py | ethos-u85-128 | 341.9 | 395.2 | 0.86 | 370.2 / 21.6 |

Ours includes what upstream's does not compute: the exact reference (the lowered program run
on the host, TOSA reference model included) and the ETRecord. QEMU cold: fresh scratch,
compile and firmware builds included (user-level runtime cache warm); warm: the same command
again (products and builds cached; ds_cnn's runner rebuilt for the kernels MobileNetV3 added
to the kernel set): simulate 0.5 s (ds_cnn) and 3.5 s (MobileNetV3-small), both bit-exact.
An earlier, quieter measurement of MobileNetV3-small on U85-128: ours 55.6 s, upstream 58.9 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODELS = ("benchmarks/models/mobilenet_v3_small.py", "benchmarks/models/ds_cnn.py")
TARGETS = ("ethos-u85-128",)
UPSTREAM_COMPILER = "examples.arm.aot_arm_compiler"

_OURS = """
import sys
from orchestrator.aot import compile_model
product = compile_model(sys.argv[1], sys.argv[2], scratch_root=sys.argv[3])
assert not product.cached
"""


@dataclass
class Row:
    """One (model, target): seconds (None: not measured) and what stopped a step."""

    model: str
    target: str
    ours_s: float | None = None
    upstream_s: float | None = None
    qemu_s: float | None = None
    qemu_stages: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def _timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str | None, str]:
    """(wall seconds, the failure's last line or None, stdout) of one process."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    lines = (done.stderr or done.stdout).strip().splitlines()
    failure = None if done.returncode == 0 else (lines[-1] if lines else f"exit {done.returncode}")
    return seconds, failure, done.stdout


def ours(model: Path, target: str, row: Row) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-suite-") as folder:
        env = {**os.environ, "PYTHONPATH": str(REPO), "ETHOSU_ORCH_QUIET": "1"}
        seconds, failure, _ = _timed([sys.executable, "-c", _OURS, str(model), target, folder],
                                     REPO, env)
    row.ours_s = None if failure else seconds
    row.problems += [f"ours: {failure}"] if failure else []


def upstream(model: Path, target: str, executorch: Path, row: Row) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-suite-upstream-") as folder:
        command = [sys.executable, "-m", UPSTREAM_COMPILER, f"--model_name={model}",
                   f"--target={target}", "--delegate", "--quantize",
                   f"--output={Path(folder) / 'model.pte'}"]
        seconds, failure, _ = _timed(command, executorch, {**os.environ})
    row.upstream_s = None if failure else seconds
    row.problems += [f"upstream: {failure}"] if failure else []


def qemu(model: Path, target: str, scratch: Path, row: Row) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "ETHOSU_ORCH_SCRATCH": str(scratch),
           "ETHOSU_ORCH_QUIET": "1"}
    command = [sys.executable, "-m", "invoke", "run", f"--model={model}", f"--target={target}",
               "--sim=qemu", "--json"]
    seconds, failure, stdout = _timed(command, REPO, env)
    try:
        result = json.loads(stdout)
    except json.JSONDecodeError:
        result = {}
    status = result.get("status")
    if failure or status != "pass":
        row.problems.append(f"qemu: {status or failure}")
    row.qemu_s = seconds
    row.qemu_stages = {name: round(float(value), 1)
                       for name, value in (result.get("timings_s") or {}).items()}


def versions() -> dict[str, str]:
    from importlib.metadata import version

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, text=True,
                          capture_output=True, check=False).stdout.strip()
    return {"tool_commit": head, "torch": version("torch"), "executorch": version("executorch"),
            "ethos-u-vela": version("ethos-u-vela"),
            "load_average": " ".join(f"{value:.1f}" for value in os.getloadavg())}


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _line(row: Row) -> str:
    ratio = f"{row.ours_s / row.upstream_s:.2f}" if row.ours_s and row.upstream_s else "-"
    stages = ", ".join(f"{name} {value}" for name, value in row.qemu_stages.items())
    return (f"| {Path(row.model).name} | {row.target} | {_cell(row.ours_s)} | "
            f"{_cell(row.upstream_s)} | {ratio} | {_cell(row.qemu_s)} | {stages} |")


def table(rows: list[Row]) -> str:
    lines = ["| model | target | ours s | upstream s | ours/upstream | QEMU end to end s | "
             "QEMU stages s |", "|---|---|---|---|---|---|---|", *map(_line, rows)]
    lines += [f"  {Path(row.model).name} {row.target}: {problem}"
              for row in rows for problem in row.problems]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--executorch", type=Path, required=True,
                        help="the ExecuTorch source tree (v1.4.1) whose aot_arm_compiler runs")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--targets", default=",".join(TARGETS))
    parser.add_argument("--qemu-scratch", type=Path, default=None)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for model in args.models.split(","):
        path = (REPO / model).resolve()
        for target in args.targets.split(","):
            row = Row(str(path), target)
            ours(path, target, row)
            upstream(path, target, args.executorch.resolve(), row)
            if args.qemu_scratch:
                qemu(path, target, args.qemu_scratch, row)
            rows.append(row)
            print(_line(row), *row.problems, file=sys.stderr, flush=True)
    facts = versions()
    if args.json:
        print(json.dumps({"versions": facts, "rows": [asdict(row) for row in rows]}, indent=2))
    else:
        print(table(rows))
        print("versions: " + ", ".join(f"{key} {value}" for key, value in facts.items()))


if __name__ == "__main__":
    main()
