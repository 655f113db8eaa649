"""Peak memory of `invoke verify`'s stages on a program of thousands of NPU operations: the
outputs compared (verify, write checks included), the departure search forced over the whole
program (its worst case: every OFM read back, every TOSA intermediate kept) and the write
checks alone. Default: DeiT-tiny (benchmarks/models/deit_tiny.py: timm's deit_tiny_patch16_224
as upstream's test builds it, seeded random weights) on ethos-u55-128, 3,486 NPU operations.

Run: python benchmarks/bench_npu_model_memory.py [model] [target] [cap GiB]
Each stage runs in a process of its own under an address-space limit (default 8 GiB, the
shared machine's budget) and prints its peak resident set (ru_maxrss), wall and CPU seconds.
The compile is cached in scratch/ (DeiT-tiny on U55-128: about 5 minutes the first time).
benchmarks/models/conformer.py is upstream's Conformer (torchaudio, loaded by path).

Measured (shared 2-core machine, load average about 20, so wall times are not the point):
`/usr/bin/time -v invoke verify --model <the Conformer above> --target ethos-u55-128` at
5cd8f8e: partition 1 is 11,560 NPU operations and DMAs with a 3.6 MB scratch; verify with
write checks and localisation (every OFM read back, every TOSA intermediate kept) peaked at
328 MiB resident (79.7 s user CPU). Before (main at d21ff6a) DeiT-tiny on U55-128, 3,486 NPU
operations, grew to 24 GB and was killed: every operation kept its read and written bytes as
an int64 index per byte, the write checks kept every overwrite of a dead tensor, and each
operation copied the scratch.

DeiT-tiny on U55-128 (3,486 NPU operations, one partition), the whole command at 0e57329:
`/usr/bin/time -v invoke verify --model benchmarks/models/deit_tiny.py --target ethos-u55-128
--json` with a fresh scratch (compile included), load average 5-9 (the job got 27% of a CPU):
peak resident 2.05 GiB (2,150,696 kB; about 1 GiB of it the compile), 84 min wall, 1,375 s
user CPU. Stages (wall): compile 806 s, NPU model 37 s, TOSA reference 32 s, write
checks 721 s, localisation 3,423 s (the outputs depart, so every OFM is read back and
compared: the first departing operation is 474, NPU_OP_CONV). Memory is bounded; the time of
the write checks and of localisation on thousands of operations is what is left to make fast.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path

DEIT = str(Path(__file__).parent / "models" / "deit_tiny.py")
STAGES = ("verify", "localise", "write_checks")
GIB = 1 << 30


def run_stage(stage: str, model: str, target: str) -> None:
    """One stage in this process (the child's side)."""
    from orchestrator.aot import compile_model
    from orchestrator.npu_model.clobber import check_writes
    from orchestrator.npu_model.execute import Npu
    from orchestrator.npu_model.locate import locate_departure
    from orchestrator.npu_model.verify import npu_delegates, random_inputs, verify_product
    from orchestrator.tosa.graph import graph_interface

    product = compile_model(model, target)
    npu = Npu.for_target_name(target)
    started, cpu = time.perf_counter(), time.process_time()
    if stage == "verify":
        report = verify_product(product, npu, model, target, seeds=(0,))
        detail = f"exact={report.exact} write_findings={len(report.write_findings)}"
    else:
        detail = ""
        for partition, program in npu_delegates(product, model, target):
            inputs = random_inputs(graph_interface(partition.tosa), 0)
            if stage == "localise":
                found = locate_departure(partition.tosa, program, npu, inputs)
                detail += f"partition {partition.index}: departure={found is not None} "
            else:
                detail += f"partition {partition.index}: " \
                          f"findings={len(check_writes(program, npu, inputs))} "
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"{stage}: peak {peak / GIB:.2f} GiB, {time.perf_counter() - started:.1f} s wall, "
          f"{time.process_time() - cpu:.1f} s CPU; {detail}", flush=True)


def main(model: str = DEIT, target: str = "ethos-u55-128", cap_gib: float = 8.0) -> None:
    cap = int(cap_gib * GIB)
    for stage in STAGES:
        done = subprocess.run(
            [sys.executable, __file__, "--stage", stage, model, target],
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)),
            capture_output=True, text=True, check=False)
        lines = done.stdout.strip().splitlines()
        print(lines[-1] if done.returncode == 0 and lines else
              f"{stage}: failed under the {cap_gib:g} GiB cap (exit {done.returncode}): "
              f"{(done.stdout + done.stderr).strip().splitlines()[-1:]}", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--stage"]:
        run_stage(args[1], args[2], args[3])
    else:
        main(*args[:2], *(float(a) for a in args[2:3]))  # type: ignore[arg-type]
