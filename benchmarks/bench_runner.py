"""Benchmark the runner stage (issue #6): runtime cold build, runner build per config, and a
second model on a built target versus rebuilding the runner with the .pte embedded.

    python benchmarks/bench_runner.py --sources /path/with/executorch,cmsis-nn,... \
        [--scratch DIR] [--targets cortex-m55,ethos-u55-128,ethos-u85-128] [--model convnet]
        [--json]

--sources: a directory holding executorch/ (v1.4.1 with submodules), cmsis-nn/, the Ethos-U
core driver (ethos-u-core-driver/ or hal_ethos_u/) and CMSIS_6 (cmsis_6/ or CMSIS_6/).
--scratch: where to build (default: a fresh temporary directory, so the first runtime build
is cold; pass a directory to reuse builds across invocations).

"Embedded" baseline = what upstream does per model: turn the .pte into a C array header
(pte_to_header.py style), compile it, and relink the runner. Ours = no build at all: the
cached runner is checked (configure stamp + ninja no-op) and the .pte goes into the model
area file. Goal: ours <= 0.3x the embedded baseline on the build part.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

GOAL = 0.3


def timed(action: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = action()
    return value, round(time.perf_counter() - started, 3)


def build(work: Any, target_name: str, sources: dict[str, Path]) -> Any:
    from orchestrator.runner.config import memory_mode_of, pools_for
    from orchestrator.runner.firmware import RunnerOptions, build_runner
    from orchestrator.targets import load_catalogue

    target = load_catalogue().target(target_name)
    mode = memory_mode_of(target, None)
    return build_runner(work, target, RunnerOptions(mode, pools_for(mode)), sources)


def pte_header(pte: Path, out: Path) -> Path:
    """A model_pte.h like upstream's pte_to_header.py: a 16-aligned const byte array."""
    data = pte.read_bytes()
    lines = [", ".join(f"0x{b:02x}" for b in data[i:i + 32]) for i in range(0, len(data), 32)]
    out.write_text("__attribute__((section(\"network_model_sec\"), aligned(16))) "
                   "const unsigned char model_pte[] = {\n" + ",\n".join(lines) + "\n};\n"
                   f"const unsigned int model_pte_size = {len(data)};\n")
    return out


def embedded_rebuild(firmware: Any, pte: Path) -> float:
    """Seconds to compile the .pte as a C array and relink the runner ELF with it."""
    from orchestrator.foundation.hosttools import ninja_binary

    build_dir = firmware.build_dir
    link = subprocess.run([str(ninja_binary()), "-C", str(build_dir), "-t", "commands",
                           str(firmware.elf.relative_to(build_dir))], capture_output=True,
                          text=True, check=True).stdout.strip().splitlines()[-1]
    link = link.removeprefix(":").strip().removeprefix("&&").strip()
    header = pte_header(pte, build_dir / "model_pte.c")
    gcc = link.split()[0].replace("g++", "gcc")
    obj = build_dir / "model_pte.o"
    started = time.perf_counter()
    subprocess.run([gcc, "-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard", "-O2", "-c",
                    str(header), "-o", str(obj)], check=True)
    relink = link.replace(" -o apps/runner/runner.elf", f" {obj} -o apps/runner/embedded.elf")
    relink = relink.replace("apps/runner/runner.map", "apps/runner/embedded.map")
    relink = relink.removesuffix("&& :").strip()
    subprocess.run(relink, shell=True, cwd=build_dir, check=True, capture_output=True)
    return round(time.perf_counter() - started, 3)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--scratch", type=Path)
    parser.add_argument("--targets", default="cortex-m55,ethos-u55-128,ethos-u85-128")
    parser.add_argument("--model", default="convnet")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from orchestrator.aot.api import compile_model
    from orchestrator.foundation.paths import scratch
    from orchestrator.options.compile import CompileChoices
    from orchestrator.runner.sources import trees_under
    from orchestrator.setup.toolchain import adopt_system_toolchain

    sources = trees_under(args.sources)
    root = args.scratch or Path(tempfile.mkdtemp(prefix="bench-runner-"))
    work = scratch(root).ensure()
    adopt_system_toolchain(work)
    report: dict[str, Any] = {"scratch": str(root), "targets": {}}
    for name in args.targets.split(","):
        first, seconds = timed(lambda name=name: build(work, name, sources))
        again, noop = timed(lambda name=name: build(work, name, sources))
        report["targets"][name] = {
            "first_build_s": seconds, "runtime_s": first.seconds["runtime"],
            "runner_s": first.seconds["runner"], "runtime_configured": first.runtime.configured,
            "noop_rebuild_s": noop}
    cpu = args.targets.split(",")[0]
    product = compile_model(args.model, cpu, CompileChoices(quantize="none"),
                            scratch_root=str(root))
    built, ours = timed(lambda: build(work, cpu, sources))
    embedded = embedded_rebuild(built.firmware, product.pte)
    report["second_model"] = {"target": cpu, "model": args.model, "ours_build_s": ours,
                              "embedded_rebuild_s": embedded,
                              "ratio": round(ours / embedded, 3) if embedded else None,
                              "goal": GOAL}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name, row in report["targets"].items():
            print(f"{name:16} first build {row['first_build_s']:8.1f} s (runtime "
                  f"{row['runtime_s']:.1f} s, runner {row['runner_s']:.1f} s), no-op "
                  f"{row['noop_rebuild_s']:.2f} s")
        second = report["second_model"]
        print(f"second model on {second['target']}: ours {second['ours_build_s']:.2f} s vs "
              f"embedded rebuild {second['embedded_rebuild_s']:.2f} s -> ratio "
              f"{second['ratio']} (goal <= {GOAL})")
    ratio = report["second_model"]["ratio"]
    return 0 if ratio is not None and ratio <= GOAL else 1


if __name__ == "__main__":
    raise SystemExit(main())
