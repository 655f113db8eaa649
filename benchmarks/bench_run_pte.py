"""Benchmark issue #39: `invoke run --pte` of an upstream-compiled program against `invoke run
--model` of the same model on the same target, end to end through the real CLI. The first
includes no compile, so it must be faster; both are measured with a cold runner (a fresh
scratch: the runner is configured and built) and a warm one (the runner reused; for --model
the compiled product is removed first, so the compile is measured every time).

    python benchmarks/bench_run_pte.py --sources DIR --model mv2 --target ethos-u85-128 \
        [--pte FILE] [--root DIR] [--json]

Without --pte the program is compiled by upstream's own aot_arm_compiler from the sources
(python -m backends.arm.scripts.aot_arm_compiler --model_name M --delegate --quantize
--target T, run in DIR/executorch). Wall seconds and CPU seconds (user + system of every
child process) are printed; on a shared, loaded machine say so when reporting them.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
SETUP = ["setup", "--only", "toolchain,sources", "--allow-unpinned=json,ethosu-core-driver"]
TREES = ("executorch", "cmsis-nn", "ethosu-core-driver", "cmsis")


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def invoke(scratch: Path, *args: str) -> dict[str, float]:
    """Run `python -m invoke ARGS` from this checkout in `scratch`; wall and CPU seconds."""
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(scratch)}
    started, cpu = time.perf_counter(), cpu_seconds()
    done = subprocess.run([sys.executable, "-m", "invoke", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"invoke {' '.join(args)} failed ({done.returncode}): "
                         f"{done.stderr.strip().splitlines()[-1:]}")
    return {"wall_s": round(time.perf_counter() - started, 2),
            "cpu_s": round(cpu_seconds() - cpu, 2)}


def fresh_scratch(root: Path, name: str, sources: Path) -> Path:
    """A new scratch with the toolchain and the given source trees registered."""
    scratch = root / name
    shutil.rmtree(scratch, ignore_errors=True)
    invoke(scratch, *SETUP, *[f"--source={tree}={sources / tree}" for tree in TREES])
    return scratch


def upstream_pte(sources: Path, model: str, target: str, out: Path) -> Path:
    """The model compiled by upstream's aot_arm_compiler from the sources."""
    pte = out / f"{model}_arm_delegate_{target}.pte"
    subprocess.run([sys.executable, "-m", "backends.arm.scripts.aot_arm_compiler",
                    f"--model_name={model}", "--delegate", "--quantize", f"--target={target}",
                    f"--output={pte}"], cwd=sources / "executorch", check=True,
                   capture_output=True)
    return pte


def measure(sources: Path, model: str, target: str, pte: Path, root: Path) -> dict[str, Any]:
    run_pte = ["run", "--pte", str(pte), "--sim", "qemu", "--timeout", "600", "--quiet"]
    run_model = ["run", "--model", model, "--target", target, "--sim", "qemu", "--timeout",
                 "600", "--quiet"]
    pte_scratch = fresh_scratch(root, "pte", sources)
    model_scratch = fresh_scratch(root, "model", sources)
    results = {"pte_cold": invoke(pte_scratch, *run_pte),
               "pte_warm": invoke(pte_scratch, *run_pte),
               "model_cold": invoke(model_scratch, *run_model)}
    shutil.rmtree(model_scratch / "models", ignore_errors=True)
    results["model_warm_runner"] = invoke(model_scratch, *run_model)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", type=Path, required=True)
    parser.add_argument("--model", default="mv2")
    parser.add_argument("--target", default="ethos-u85-128")
    parser.add_argument("--pte", type=Path)
    parser.add_argument("--root", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="bench-run-pte-"))
    pte = args.pte or upstream_pte(args.sources, args.model, args.target, root)
    results = measure(args.sources, args.model, args.target, pte, root)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name, numbers in results.items():
        print(f"{name:20} {numbers['wall_s']:8.1f} s wall {numbers['cpu_s']:8.1f} s CPU")
    faster = results["pte_warm"]["wall_s"] < results["model_warm_runner"]["wall_s"]
    print(f"run --pte faster than run --model with a warm runner: {faster}")


if __name__ == "__main__":
    main()
