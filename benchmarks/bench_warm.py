"""Benchmark issue #44: what a warm run costs beyond its physical floor.

    python benchmarks/bench_warm.py [--target ethos-u55-128] [--model convnet]
        [--only run,configure,evaluate,regress] [--repeat 3] [--samples 4] [--json]

Every measurement drives the real CLI (`python -m invoke ...` from this checkout, its
scratch) in a fresh process, as a user would, and prints each against its floor:

  run        a warm `invoke run --target T --model M --sim qemu` (primed once first: product,
             runtime and runner cached), then the same through the invoke-free entry
             (`python -m orchestrator run ...`, row run-direct). Floor: the simulation
             (timings_s.simulate of its result). Goal: wall <= simulate + 0.5 s. Where the
             rest goes: the interpreter's start (`python -c pass`), invoke's own floor (a
             trivial task in an empty tasks.py, invoke row only), imports (`python -X
             importtime`, by package), the stages of the result (timings_s) and the run's
             CPU seconds.
  configure  a new configuration of a cached lowering in a new process: `invoke compile
             --model M --target T2` (T2: another MAC count of T's family, its product removed
             first so Vela and the .pte assembly run). Floor: Vela's own time (the delegate
             compiled in-process with the same spec, executorch already imported). Goals:
             <= 0.1x the full compile (the lowering's recorded seconds + its configuration)
             and <= Vela + 2 s.
  evaluate   `invoke evaluate --model M --target T --data D --sim qemu` on a data set of
             --samples random input sets, run a second time (product, runner and the input
             sets' host references cached). Floor: the simulator session (session_seconds).
             Goal: start-up (wall - session) <= 5 s; imports by package show whether torch,
             devtools or the float model were loaded.
  regress    an unchanged matrix (every cell cached) run a second time: `invoke regress`
             over M on T (qemu). Floor: the sum of the cells' simulations. Goal: <= floor
             + 2 s.

The commands run with Python's bytecode cache as a user's install has it (__pycache__ written
on the priming run, read after): PYTHONDONTWRITEBYTECODE is dropped from their environment
unless --no-bytecode-cache, which measures every import compiled from source again.

Wall seconds and CPU seconds (user + system of the process and its children) are printed. On
a shared, loaded machine wall seconds are inflated by waiting for a core: say so when
reporting them; CPU seconds are the steadier number.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RUN_GOAL_S = 0.5
CONFIGURE_RATIO_GOAL = 0.1
CONFIGURE_VELA_GOAL_S = 2.0
REGRESS_GOAL_S = 2.0
EVALUATE_START_GOAL_S = 5.0
SECOND_CONFIG = {"ethos-u55-128": "ethos-u55-256", "ethos-u55-256": "ethos-u55-128",
                 "ethos-u65-256": "ethos-u65-512", "ethos-u65-512": "ethos-u65-256",
                 "ethos-u85-128": "ethos-u85-256", "ethos-u85-256": "ethos-u85-128"}
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


CHILD_ENV = dict(os.environ)


def timed(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run `command` from the checkout: wall and CPU seconds, exit code, stdout, stderr."""
    cpu, started = cpu_seconds(), time.perf_counter()
    done = subprocess.run(command, cwd=REPO, env=env or CHILD_ENV, capture_output=True,
                          text=True, check=False)
    return {"wall_s": time.perf_counter() - started, "cpu_s": cpu_seconds() - cpu,
            "exit": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def invoke(args: list[str], python_flags: tuple[str, ...] = (),
           entry: str = "invoke") -> dict[str, Any]:
    """`python -m <entry> args` (invoke, or orchestrator: the invoke-free `run`)."""
    row = timed([sys.executable, *python_flags, "-m", entry, *args])
    if row["exit"] not in (0, 1):
        tail = (row["stderr"] or row["stdout"]).strip().splitlines()[-3:]
        raise SystemExit(f"invoke {' '.join(args)} exited {row['exit']}: {tail}")
    return row


def last_json(text: str) -> dict[str, Any]:
    """The JSON document a --json command printed (the last top-level object)."""
    start = text.find("{")
    return json.loads(text[start:]) if start >= 0 else {}


def import_breakdown(stderr: str, top: int = 8) -> list[tuple[str, float]]:
    """Seconds of imports by top-level package (orchestrator by subpackage), largest first."""
    totals: dict[str, float] = defaultdict(float)
    for line in stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match:
            parts = match.group(4).split(".")
            name = ".".join(parts[:2]) if parts[0] == "orchestrator" else parts[0]
            totals[name] += int(match.group(1)) / 1e6
    return sorted(totals.items(), key=lambda item: -item[1])[:top]


def median_row(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The row of median wall time."""
    return sorted(rows, key=lambda row: row["wall_s"])[len(rows) // 2]


def bench_run(target: str, model: str, repeat: int, entry: str = "invoke") -> dict[str, Any]:
    args = ["run", "--target", target, "--model", model, "--sim", "qemu", "--json", "--quiet"]
    invoke(args, entry=entry)   # prime: compile, runtime and runner cached
    rows = []
    for _ in range(repeat):
        row = invoke(args, entry=entry)
        result = last_json(row["stdout"])
        row["timings"] = result.get("timings_s", {})
        row["status"] = result.get("status")
        row["early_start"] = (result.get("target") or {}).get("options", {}).get("early_start")
        rows.append(row)
    row = median_row(rows)
    simulate = float(row["timings"].get("simulate", 0.0))
    start = statistics.median(timed([sys.executable, "-c", "pass"])["wall_s"] for _ in range(3))
    floor = invoke_floor() if entry == "invoke" else {}
    imports = invoke(args, ("-X", "importtime"), entry=entry)
    import_s = sum(seconds for _, seconds in import_breakdown(imports["stderr"], top=10_000))
    name, program = ("run", "invoke") if entry == "invoke" else ("run-direct", f"python -m {entry}")
    return {"name": name, "command": f"{program} " + " ".join(args), "status": row["status"],
            "wall_s": row["wall_s"], "cpu_s": row["cpu_s"], "floor_s": simulate,
            "over_floor_s": row["wall_s"] - simulate, "goal": f"<= simulate + {RUN_GOAL_S} s",
            "met": row["wall_s"] - simulate <= RUN_GOAL_S,
            "where": {"python start": start, **floor,
                      "imports (all, -X importtime)": import_s,
                      **{f"  import {name}": s
                         for name, s in import_breakdown(imports["stderr"])},
                      **{f"stage {name}": float(s) for name, s in row["timings"].items()},
                      "simulator started early, adopted (runs)": sum(
                          r["early_start"] == "adopted" for r in rows)}}


def invoke_floor(repeat: int = 3) -> dict[str, float]:
    """What invoke itself costs before any task of ours runs: a trivial task in an otherwise
    empty tasks.py (`python -m invoke noop`), wall and CPU seconds, medians of `repeat`."""
    with tempfile.TemporaryDirectory(prefix="bench-warm-floor-") as folder:
        (Path(folder) / "tasks.py").write_text(
            "from invoke import task\n\n\n@task\ndef noop(c):\n    pass\n")
        rows = [timed([sys.executable, "-m", "invoke", "-r", folder, "noop"])
                for _ in range(repeat)]
    return {"invoke floor (empty tasks.py, wall)": statistics.median(r["wall_s"] for r in rows),
            "invoke floor (cpu)": statistics.median(r["cpu_s"] for r in rows)}


def product_of(model: str, target: str) -> dict[str, Any]:
    """`invoke compile --json` (cached or not): its summary document."""
    return last_json(invoke(["compile", "--model", model, "--target", target, "--json",
                             "--quiet"])["stdout"])


def vela_seconds(product_dir: Path, target: str) -> float:
    """Vela's own time for the product's configuration: each partition's TOSA compiled
    in-process with the spec a compile of `target` uses (executorch imported beforehand)."""
    code = f"""
import json, sys, time
from pathlib import Path
from orchestrator.aot.api import request_for
from orchestrator.aot.assembly.configure import _vela
from orchestrator.aot.lower.lowering import ethosu_compile_spec
from orchestrator.options.compile import CompileChoices
from orchestrator.tosa.partitions import partitions_from_manifest
directory = Path({str(product_dir)!r})
manifest = json.loads((directory / "manifest.json").read_text())
request = request_for(manifest["model"]["location"], {target!r}, CompileChoices())
spec = ethosu_compile_spec(request.options, None)
partitions = partitions_from_manifest(manifest, directory)
started = time.perf_counter()
for partition in partitions:
    _vela(partition.tosa, spec)
print(time.perf_counter() - started)
"""
    done = timed([sys.executable, "-c", code])
    if done["exit"] != 0:
        print(f"  (Vela floor not measured: {done['stderr'].strip().splitlines()[-1:]})",
              file=sys.stderr)
        return float("nan")
    return float(done["stdout"].strip().splitlines()[-1])


def bench_configure(target: str, model: str) -> dict[str, Any]:
    second = SECOND_CONFIG.get(target)
    if second is None:
        raise SystemExit(f"no second configuration known for {target}: "
                         f"use --target {' or '.join(sorted(SECOND_CONFIG))}")
    first = product_of(model, target)   # the lowering (cached after this)
    lowering = first.get("lowering") or {}
    full = float(lowering.get("lowering_seconds") or 0.0)   # the first full compile's
    directory = Path(product_of(model, second)["paths"]["directory"])
    shutil.rmtree(directory)   # a cache entry: the next compile makes it again
    row = invoke(["compile", "--model", model, "--target", second, "--json", "--quiet"])
    made = last_json(row["stdout"])
    vela = vela_seconds(Path(made["paths"]["directory"]), second)
    over = row["wall_s"] - vela
    return {"name": "configure", "command": f"invoke compile --model {model} --target {second}",
            "status": "cached" if made.get("cached") else "configured",
            "wall_s": row["wall_s"], "cpu_s": row["cpu_s"], "floor_s": vela,
            "over_floor_s": over,
            "goal": f"<= {CONFIGURE_RATIO_GOAL}x full compile and <= Vela + "
                    f"{CONFIGURE_VELA_GOAL_S} s",
            "met": row["wall_s"] <= CONFIGURE_RATIO_GOAL * full and over <= CONFIGURE_VELA_GOAL_S,
            "where": {"full compile (recorded)": full,
                      "ratio to full compile": row["wall_s"] / full if full else float("nan"),
                      "ratio to full compile, cpu": row["cpu_s"] / full if full
                      else float("nan"),
                      "cpu over Vela": row["cpu_s"] - vela,
                      "configuration (recorded)": float(made.get("seconds") or 0.0)}}


def write_data_set(folder: Path, model: str, target: str, samples: int) -> None:
    """`samples` random input sets (.npy, one per file) shaped as the product's input."""
    import numpy as np

    from orchestrator.aot.products import load_product

    product = load_product(Path(product_of(model, target)["paths"]["directory"]))
    assert product is not None
    if len(product.inputs) != 1:
        raise SystemExit(f"bench evaluate takes a one-input model ({model} has "
                         f"{len(product.inputs)})")
    spec = product.inputs[0]
    random = np.random.default_rng(0)
    for index in range(samples):
        array = random.uniform(-1, 1, tuple(spec.shape)).astype(spec.dtype)
        np.save(folder / f"sample_{index:03}.npy", array)


START_UP = """
import sys
from orchestrator.evaluate.evaluate import prepare
from orchestrator.options.evaluate import EvaluateRequest
from orchestrator.foundation.paths import scratch
prepare(EvaluateRequest(target=sys.argv[1], model=sys.argv[2], data=sys.argv[3], sim="qemu"),
        scratch().ensure())
"""


def bench_evaluate(target: str, model: str, samples: int) -> dict[str, Any]:
    """The whole warm evaluate, and its start-up: a fresh process doing what evaluate does
    before the first sample (orchestrator.evaluate.evaluate.prepare), timed from outside."""
    with tempfile.TemporaryDirectory(prefix="bench-warm-data-") as folder:
        write_data_set(Path(folder), model, target, samples)
        args = ["evaluate", "--model", model, "--target", target, "--data", folder,
                "--sim", "qemu", "--json", "--quiet"]
        invoke(args)   # prime: references computed and kept
        row = invoke(args)
        imports = invoke(args, ("-X", "importtime"))
        start_up = timed([sys.executable, "-c", START_UP, target, model, folder])
    if start_up["exit"] != 0:
        raise SystemExit(f"evaluate start-up failed: {start_up['stderr'].strip()[-500:]}")
    document = last_json(row["stdout"])
    session = float(document.get("session_seconds") or 0.0)
    start = start_up["wall_s"]
    packages = import_breakdown(imports["stderr"], top=10_000)
    heavy = sorted(name for name, _ in packages
                   if name.split(".")[0] in ("torch", "executorch", "torchao", "tosa"))
    return {"name": "evaluate", "command": "invoke " + " ".join(args[:6]) + " (D: "
                                           f"{samples} input sets) --sim qemu",
            "status": f"passed={document.get('passed')} heavy imports: {heavy or 'none'}",
            "wall_s": row["wall_s"], "cpu_s": row["cpu_s"], "floor_s": session,
            "over_floor_s": start, "goal": f"start-up <= {EVALUATE_START_GOAL_S} s",
            "met": start <= EVALUATE_START_GOAL_S,
            "where": {"start-up wall (prepare, fresh process)": start,
                      "start-up cpu": start_up["cpu_s"],
                      "after the session (report, plots)": row["wall_s"] - start - session,
                      "imports (all, -X importtime)": sum(s for _, s in packages),
                      **{f"  import {name}": s for name, s in packages[:8]}}}


MATRIX = """schema = 1
name = "bench-warm"
description = "bench_warm: one model on one target, simulated on QEMU"

[[lanes]]
name = "warm"
mode = "run"
models = ["{model}"]
targets = ["{target}"]
sim = "qemu"
options = ["model_kernels"]

[options]
# the runtime `invoke run` builds (regress's default kernel set, all, is a long build)
model_kernels = {{ kernel_set = "model" }}
"""


def simulate_seconds(report: dict[str, Any]) -> float:
    """Sum of the cells' simulations in a regress report document."""
    return sum(float(((cell.get("result") or {}).get("timings_s") or {}).get("simulate", 0.0))
               for cell in report.get("cells", []))


def cached_cells(report: dict[str, Any]) -> str:
    """How many cells the report says were served from cache (its served_from_cache)."""
    served = report.get("served_from_cache") or {}
    stages = ", ".join(f"{stage} {count}" for stage, count in served.get("stages", {}).items())
    return (f"{len(served.get('cells', []))}/{served.get('total', 0)} cells served from cache"
            f" ({stages})")


def bench_regress(target: str, model: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-warm-") as folder:
        matrix = Path(folder) / "warm.toml"
        matrix.write_text(MATRIX.format(model=model, target=target))
        args = ["regress", "--matrix", str(matrix), "--json", "--quiet",
                "--baselines", str(Path(folder) / "none.json")]
        invoke(args)   # prime
        row = invoke(args)
        imports = invoke(args, ("-X", "importtime"))
    report = last_json(row["stdout"])
    packages = import_breakdown(imports["stderr"], top=10_000)
    floor = simulate_seconds(report)
    over = row["wall_s"] - floor
    return {"name": "regress", "command": f"invoke regress (1 cell: {model} on {target}, qemu)",
            "status": cached_cells(report), "wall_s": row["wall_s"], "cpu_s": row["cpu_s"],
            "floor_s": floor,
            "over_floor_s": over, "goal": f"<= simulations + {REGRESS_GOAL_S} s",
            "met": over <= REGRESS_GOAL_S,
            "where": {**{f"phase {name}": float(s)
                         for name, s in (report.get("phases_s") or {}).items()},
                      "imports (all, -X importtime)": sum(s for _, s in packages),
                      **{f"  import {name}": s for name, s in packages[:8]}}}


def show(row: dict[str, Any]) -> None:
    floor = row["floor_s"]
    ratio = row["wall_s"] / floor if floor else float("nan")
    print(f"{row['name']:10} {row['wall_s']:7.2f} s wall {row['cpu_s']:7.2f} s cpu   "
          f"floor {floor:6.2f} s  ratio {ratio:6.1f}x  over floor {row['over_floor_s']:6.2f} s"
          f"  goal {row['goal']}: {'met' if row['met'] else 'NOT met'}  ({row['status']})")
    print(f"           {row['command']}")
    for name, value in row["where"].items():
        shown = f"{value:7d}" if isinstance(value, int) else f"{value:7.3f}"
        print(f"           {name:34} {shown}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="ethos-u55-128")
    parser.add_argument("--model", default="convnet")
    parser.add_argument("--only", default="run,configure,evaluate,regress")
    parser.add_argument("--samples", type=int, default=4, help="evaluate's input sets")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs measured (median)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="keep PYTHONDONTWRITEBYTECODE (every import compiled again)")
    options = parser.parse_args()
    if not options.no_bytecode_cache:
        CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    chosen = options.only.split(",")

    def runs() -> list[dict[str, Any]]:
        return [bench_run(options.target, options.model, options.repeat, entry)
                for entry in ("invoke", "orchestrator")]

    benches: dict[str, Callable[[], Any]] = {
        "run": runs,
        "configure": lambda: bench_configure(options.target, options.model),
        "evaluate": lambda: bench_evaluate(options.target, options.model, options.samples),
        "regress": lambda: bench_regress(options.target, options.model)}
    rows: list[dict[str, Any]] = []
    for name in chosen:
        found: Any = benches[name]() if name in benches else []
        rows += found if isinstance(found, list) else [found]
    load = os.getloadavg()[0]
    if options.json:
        print(json.dumps({"load_1min": load, "rows": rows,
                          "bytecode_cache": "PYTHONDONTWRITEBYTECODE" not in CHILD_ENV},
                         indent=1, default=str))
        return 0
    print(f"load average {load:.1f} on {os.cpu_count()} cores (wall seconds inflate with it); "
          f"bytecode cache {'off' if 'PYTHONDONTWRITEBYTECODE' in CHILD_ENV else 'on'}")
    for row in rows:
        show(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
