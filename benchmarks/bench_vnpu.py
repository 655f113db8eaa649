"""Host NPU model throughput on a compiled model (default mv2 on ethos-u55-128), the TOSA
reference model's time for the same partitions beside it, and the MAC rate.

Run: python benchmarks/bench_vnpu.py [model] [target[,target...]] [repeats]
(the U85 goal: python benchmarks/bench_vnpu.py mv2 ethos-u85-128,ethos-u85-2048)
(compiles once, cached in scratch/; MACs are counted from the command stream's CONV and
DEPTHWISE commands. On a shared machine compare the CPU-second figures: wall time varies with
the load.)
"""

from __future__ import annotations

import sys
import time

from orchestrator.aot import compile_model
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions
from orchestrator.tosa.reference_model import run_tosa_flatbuffer
from orchestrator.vnpu.binstream import VelaProgram, programs_in_pte
from orchestrator.vnpu.execute import Npu, run_program
from orchestrator.vnpu.listing import model_listing
from orchestrator.vnpu.verify import random_inputs

SIZE_REGISTERS = {"NPU_SET_OFM_HEIGHT_M1": "oh", "NPU_SET_OFM_WIDTH_M1": "ow",
                  "NPU_SET_OFM_DEPTH_M1": "od", "NPU_SET_IFM_DEPTH_M1": "id",
                  "NPU_SET_KERNEL_HEIGHT_M1": "kh", "NPU_SET_KERNEL_WIDTH_M1": "kw"}


def macs(program: VelaProgram) -> int:
    """Multiply-accumulates of the CONV and DEPTHWISE commands (dilation ignored)."""
    size = dict.fromkeys(SIZE_REGISTERS.values(), 0)
    total = 0
    for _offset, name, param, _data in model_listing(program.cmd_data):
        if name in SIZE_REGISTERS:
            size[SIZE_REGISTERS[name]] = param + 1
        elif name in ("NPU_OP_CONV", "NPU_OP_DEPTHWISE"):
            per_output = size["kh"] * size["kw"] * (size["id"] if name == "NPU_OP_CONV" else 1)
            total += size["oh"] * size["ow"] * size["od"] * per_output
    return total


def main(model: str = "mv2", targets: str = "ethos-u55-128", repeats: int = 3) -> None:
    for target in targets.split(","):
        bench_target(model, target, repeats)


def bench_target(model: str, target: str, repeats: int) -> None:
    """Times one target: the NPU model over `repeats` inferences, the TOSA reference once."""
    product = compile_model(model, target)
    npu = Npu.for_target_name(target)
    pairs = list(zip(product_partitions(product), programs_in_pte(product.pte), strict=True))
    inputs = [random_inputs(graph_interface(p.tosa), 0) for p, _ in pairs]
    total_macs = sum(macs(program) for _, program in pairs)
    run_program(pairs[0][1], npu, inputs[0])  # build + load the library outside the timing
    started, cpu_started = time.perf_counter(), time.process_time()
    for _ in range(repeats):
        for (_, program), arrays in zip(pairs, inputs, strict=True):
            run_program(program, npu, arrays)
    model_seconds = (time.perf_counter() - started) / repeats
    model_cpu = (time.process_time() - cpu_started) / repeats
    started, cpu_started = time.perf_counter(), time.process_time()
    for (partition, _), arrays in zip(pairs, inputs, strict=True):
        run_tosa_flatbuffer(partition.tosa, arrays)
    tosa_seconds = time.perf_counter() - started
    tosa_cpu = time.process_time() - cpu_started
    print(f"{model} on {npu.label()}: {total_macs / 1e6:.1f} M MACs")
    print(f"  NPU model      {model_seconds:.3f} s/inference  "
          f"{total_macs / model_seconds / 1e9:.2f} G MAC/s wall, "
          f"{total_macs / model_cpu / 1e9:.2f} G MAC/s per CPU second (one thread)")
    print(f"  TOSA reference {tosa_seconds:.3f} s/inference  "
          f"(ratio {tosa_seconds / model_seconds:.1f}x the NPU model's time; CPU seconds "
          f"{tosa_cpu:.3f} vs {model_cpu:.3f}: {tosa_cpu / model_cpu:.1f}x)")


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(args[:2]), *(int(a) for a in args[2:3]))  # type: ignore[arg-type]
