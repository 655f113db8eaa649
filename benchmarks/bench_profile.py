"""Benchmark issue #23: what profiling costs.

    python benchmarks/bench_profile.py --sources /path/with/executorch,cmsis-nn,... \
        [--scratch DIR] [--model mv2] [--repeat 3] [--json]

For one model on the Cortex-M55 under QEMU (int8, CMSIS-NN kernels), three real runs each:
without the event tracer, with it (`--profile`) and with every operator's output kept
(`--intermediates`). Reported per variant: the simulation's wall seconds (median), the
instructions of the inference (QEMU -icount SysTick ticks: the runner's own count, which the
tracer's bookkeeping inflates), the ETDump and debug-buffer bytes, and the host's seconds to
read the ETDump with ExecuTorch's Inspector. The runtime builds (one per variant) happen once,
before the timed runs. Timings on a shared, loaded machine are inflated: say so when
reporting them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

VARIANTS = {"plain": {}, "profile": {"profile": True},
            "intermediates": {"profile": True, "intermediates": True}}


def run_once(work: Any, sources: dict[str, Path], model: str, flags: dict[str, bool]) -> Any:
    from orchestrator.api.run_job import execute
    from orchestrator.commands.run import RunnerSettings, RunRequest
    from orchestrator.options.fields import from_cli

    settings = replace(from_cli(RunnerSettings, {"quantize": "int8", **flags}),
                       sources=sources)
    return execute(RunRequest(target="cortex-m55", app="runner", sim="qemu", model=model,
                              timeout_s=600.0, idle_timeout_s=300.0, runner=settings), work)


def inspector_seconds(etdump: Path, etrecord: str | None) -> float:
    from orchestrator.profile.events import read_events

    started = time.perf_counter()
    read_events(etdump.read_bytes(), Path(etrecord) if etrecord else None)
    return round(time.perf_counter() - started, 3)


def measure(work: Any, sources: dict[str, Path], model: str, flags: dict[str, bool],
            repeat: int) -> dict[str, Any]:
    run_once(work, sources, model, flags)   # builds (and compiles) outside the timing
    results = [run_once(work, sources, model, flags) for _ in range(repeat)]
    last = results[-1]
    found: dict[str, Any] = {
        "status": last.status.value,
        "simulate_s_median": statistics.median(r.timings_s.get("simulate", 0.0)
                                               for r in results),
        "inference_ticks": last.cpu.total if last.cpu else None,
        "elf_bytes": Path(last.artifacts["elf"]).stat().st_size,
    }
    if last.profile is not None:
        found.update({"etdump_bytes": last.profile.etdump_bytes,
                      "traced_execute_ticks": last.profile.total,
                      "operators": len(last.profile.operators)})
        found["inspector_s"] = inspector_seconds(
            Path(last.artifacts["etdump"]),
            last.artifacts.get("etrecord") or _etrecord_of(last))
    if "debug_buffer" in last.artifacts:
        found["debug_buffer_bytes"] = Path(last.artifacts["debug_buffer"]).stat().st_size
    return found


def _etrecord_of(result: Any) -> str | None:
    path = Path(result.target.options["product"]) / "etrecord.bin"
    return str(path) if path.is_file() else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--scratch", type=Path, default=Path("scratch-bench-profile"))
    parser.add_argument("--model", default="mv2")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from orchestrator.foundation.paths import scratch
    from orchestrator.runner.sources import trees_under
    from orchestrator.setup.toolchain import adopt_system_toolchain

    work = scratch(args.scratch).ensure()
    adopt_system_toolchain(work)
    sources = trees_under(args.sources)
    report = {name: measure(work, sources, args.model, flags, args.repeat)
              for name, flags in VARIANTS.items()}
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        for name, values in report.items():
            print(name, " ".join(f"{key}={value}" for key, value in values.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
