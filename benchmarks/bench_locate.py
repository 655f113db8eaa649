"""The cost of localisation in `invoke verify`: verify time without it (locate=False), with it
(write checks on every partition, departure search on a partition that is not exact), and the
departure search alone forced over a whole exact program (its worst case: every operation's
OFM read back and compared, every TOSA intermediate kept).

Run: python benchmarks/bench_locate.py [model] [target] [repeats]   (default mv2 ethos-u55-128)
(compiles once, cached in scratch/; on a shared machine compare CPU seconds.)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from orchestrator.aot import compile_model
from orchestrator.npu_model.binstream import programs_in_pte
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.locate import locate_departure
from orchestrator.npu_model.verify import random_inputs, verify_product
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.partitions import product_partitions


def timed(what: str, repeats: int, run: Callable[[], object]) -> None:
    started, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeats):
        run()
    print(f"{what}: {(time.perf_counter() - started) / repeats:.3f} s wall, "
          f"{(time.process_time() - cpu) / repeats:.3f} s CPU per run")


def main(model: str = "mv2", target: str = "ethos-u55-128", repeats: int = 3) -> None:
    product = compile_model(model, target)
    npu = Npu.for_target_name(target)
    verify_product(product, npu, model, target, locate=False)   # build/load outside timing
    timed("verify without localisation", repeats,
          lambda: verify_product(product, npu, model, target, locate=False))
    timed("verify with localisation", repeats,
          lambda: verify_product(product, npu, model, target, locate=True))
    pairs = list(zip(product_partitions(product), programs_in_pte(product.pte), strict=True))
    timed("departure search forced over every partition", repeats, lambda: [
        locate_departure(p.tosa, program, npu, random_inputs(graph_interface(p.tosa), 0))
        for p, program in pairs])


if __name__ == "__main__":
    main(*sys.argv[1:3], *(int(a) for a in sys.argv[3:4]))
