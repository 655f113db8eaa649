"""Benchmark every Cortex-M CPU on its QEMU board (issue #40): per CPU and CMSIS-NN backend
(scalar, DSP, MVE), the work one inference takes as QEMU counts it and the wall time of the
QEMU run. QEMU runs with -icount shift=0: its SysTick follows virtual time at one instruction
per nanosecond, so the SysTick count of an inference is an instruction-driven count
(deterministic, labelled as a count) and not the core's cycles; QEMU models no timing.

    python benchmarks/bench_cortex_m_icount.py --sources /path/with/executorch,cmsis-nn \
        [--scratch DIR] [--cpus cortex-m3,cortex-m4,cortex-m55] \
        [--models deep_autoencoder,ds_cnn,mobilenet_v1_025,resnet8] [--isa dsp] [--json]

The first run of a CPU builds its ExecuTorch runtime (minutes, cached by content); pass a
--scratch that already holds builds to time the runs alone. Every run must pass with outputs
bit-exact against the exact reference; a CPU whose outputs differ is reported.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

MLPERF_TINY = "deep_autoencoder,ds_cnn,mobilenet_v1_025,resnet8"


def run_once(work: Any, cpu: str, model: str, isa: str | None,
             sources: dict[str, Path]) -> Any:
    from orchestrator.api.run_job import execute
    from orchestrator.commands.run import RunnerSettings, RunRequest
    from orchestrator.options.compile import CompileChoices

    return execute(RunRequest(target=cpu, app="runner", sim="qemu", model=model,
                              timeout_s=900.0, idle_timeout_s=600.0,
                              runner=RunnerSettings(sources=sources),
                              compile=CompileChoices(isa=isa)), work)


def row(cpu: str, model: str, result: Any) -> dict[str, Any]:
    facts = result.target.options.get("cortex_m") or {}
    return {"cpu": cpu, "model": model, "backend": facts.get("cmsis_nn_backend"),
            "board": facts.get("board"), "ran_on": facts.get("ran_on"),
            "qemu_systick_count": result.cpu.total if result.cpu else None,
            "count_source": result.cpu.source if result.cpu else None,
            "qemu_wall_s": result.timings_s.get("simulate"),
            "status": result.status.value,
            "exact": result.comparison.exact if result.comparison else None}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--scratch", type=Path)
    parser.add_argument("--cpus", default="cortex-m3,cortex-m4,cortex-m7,cortex-m33,cortex-m55")
    parser.add_argument("--models", default=MLPERF_TINY)
    parser.add_argument("--isa")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from orchestrator.foundation.paths import scratch
    from orchestrator.runner.sources import trees_under
    from orchestrator.setup.toolchain import adopt_system_toolchain

    sources = trees_under(args.sources)
    work = scratch(args.scratch or Path(tempfile.mkdtemp(prefix="bench-cortex-m-"))).ensure()
    adopt_system_toolchain(work)
    rows = [row(cpu, model, run_once(work, cpu, model, args.isa, sources))
            for cpu in args.cpus.split(",") for model in args.models.split(",")]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"{'cpu':<14}{'backend':<8}{'model':<20}{'QEMU count (SysTick, -icount)':>30}"
              f"{'QEMU wall s':>12}  verdict")
        for item in rows:
            print(f"{item['cpu']:<14}{item['backend'] or '-':<8}{item['model']:<20}"
                  f"{item['qemu_systick_count'] or '-':>30}{item['qemu_wall_s'] or '-':>12}  "
                  f"{item['status']}{'' if item['exact'] else ' (not exact)'}")
    return 0 if all(item["status"] == "pass" and item["exact"] for item in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
