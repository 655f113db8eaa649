"""Host NPU model time per inference beside the TOSA reference model's, per model and target,
with the ratio and the MAC rate. The goal (issue 31): the NPU model at least 5x faster than the
TOSA reference on every model of the suite, DeiT-tiny included.

Run: python benchmarks/bench_npu_model.py [models] [targets] [repeats] [toolset]
  models, targets: comma-separated; a model is a built-in name or a model file
  (default: mv2,benchmarks/models/ds_cnn.py,benchmarks/models/deit_tiny.py on ethos-u85-128;
  `python benchmarks/bench_npu_model.py mv2 ethos-u85-128,ethos-u85-2048` for one model).
  toolset: compile under it (`invoke setup --toolsets NAME` first), e.g. vela-5.2.0: DeiT-tiny
  on U55-128 stops on Vela 5.1.0's stream (its first MLP Linear) and runs under 5.2.0.
  Wav2Letter: `python benchmarks/bench_npu_model.py benchmarks/models/wav2letter.py ethos-u55-128`
  (400 frames; on U85 it needs --memory-mode Sram_Only, which this script does not pass).
Compiles once (cached in scratch/; DeiT-tiny takes minutes on U85-128 the first time). Both
models run the same seeded random inputs, `repeats` times each (and for at least a CPU second)
after one warm-up run of the NPU model. The host library keeps earlier weight decodes
(firmware/npu_model/src/em_weight_reuse.c), so the timed runs reuse them: the warm-up, the
first inference, which decodes every weight, is reported beside them. MACs are counted from the
command stream's CONV and DEPTHWISE commands. On a shared machine compare the CPU-second
figures (one thread each): wall time varies with the load. The summary ends with the versions
that produced it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.aot import Product, compile_model
from orchestrator.aot.key import tool_versions
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.npu_model.hostlib import load_library
from orchestrator.npu_model.listing import model_listing
from orchestrator.npu_model.vela_faults import naming_known_faults
from orchestrator.npu_model.verify import npu_delegates, random_inputs
from orchestrator.npu_model.version import model_version
from orchestrator.options.compile import CompileChoices
from orchestrator.toolsets.catalogue import find_toolset
from orchestrator.toolsets.compile import compile_under
from orchestrator.tosa.graph import graph_interface
from orchestrator.tosa.reference_model import run_tosa_flatbuffer

DEFAULT_MODELS = "mv2,benchmarks/models/ds_cnn.py,benchmarks/models/deit_tiny.py"
DEFAULT_TARGETS = "ethos-u85-128"
GOAL_RATIO = 5.0   # the TOSA reference's CPU time over the NPU model's
MIN_CPU_SECONDS = 1.0   # each timing runs at least this long
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


@dataclass(frozen=True)
class Timing:
    """Seconds per inference, wall clock and CPU (this process, one thread)."""

    wall: float
    cpu: float


@dataclass(frozen=True)
class Row:
    """One model on one target."""

    model: str
    npu: str
    macs: int
    model_time: Timing
    tosa_time: Timing
    first_cpu: float   # CPU seconds of the NPU model's first inference (decodes the weights)
    compiled_by: str = ""   # the versions that compiled the product (and its toolset)

    @property
    def ratio(self) -> float:
        """The TOSA reference's CPU time over the NPU model's."""
        return self.tosa_time.cpu / self.model_time.cpu


def timed(run: Callable[[], None], repeats: int) -> Timing:
    """Mean seconds per call of `run` over at least `repeats` calls and MIN_CPU_SECONDS (a
    model of a millisecond is timed over hundreds of calls)."""
    started, cpu_started = time.perf_counter(), time.process_time()
    calls = 0
    while calls < repeats or time.process_time() - cpu_started < MIN_CPU_SECONDS:
        run()
        calls += 1
    return Timing((time.perf_counter() - started) / calls,
                  (time.process_time() - cpu_started) / calls)


def compiled(model: str, target: str, toolset: str | None) -> Product:
    """The product under the pins, or under `toolset` (its one-line error raised)."""
    if toolset is None:
        return compile_model(model, target)
    (done,) = compile_under(find_toolset(toolset), model, (target,), CompileChoices(), scratch())
    if done.product is None:
        raise done.error or OrchestratorError(f"{model} did not compile under {toolset}", "")
    return done.product


def bench_target(model: str, target: str, repeats: int, toolset: str | None = None) -> Row:
    """Times one model on one target: the NPU model and the TOSA reference on the same
    inputs, `repeats` inferences each."""
    product = compiled(model, target, toolset)
    npu = Npu.for_target_name(target)
    pairs = npu_delegates(product, model, target)   # each partition with its own stream
    inputs: list[list[np.ndarray[Any, Any]]] = [random_inputs(graph_interface(p.tosa), 0)
                                                for p, _ in pairs]

    def npu_model() -> None:
        for (_, program), arrays in zip(pairs, inputs, strict=True):
            run_program(program, npu, arrays)

    def tosa_reference() -> None:
        for (partition, _), arrays in zip(pairs, inputs, strict=True):
            run_tosa_flatbuffer(partition.tosa, arrays)

    load_library()   # build + load the library outside the timing
    cpu_started = time.process_time()
    with naming_known_faults(product.versions.vela):   # a stop on one says the way around
        npu_model()
    first = time.process_time() - cpu_started
    return Row(model, npu.label(), sum(macs(program) for _, program in pairs),
               timed(npu_model, repeats), timed(tosa_reference, repeats), first,
               compiled_by(product))


def compiled_by(product: Product) -> str:
    versions = product.versions
    return (f"executorch {versions.executorch}, Vela {versions.vela}, toolset "
            f"{product.manifest.get('toolset', 'pins')}")


def print_row(row: Row) -> None:
    wall, cpu = row.model_time.wall, row.model_time.cpu
    print(f"{row.model} on {row.npu}: {row.macs / 1e6:.1f} M MACs ({row.compiled_by})")
    print(f"  NPU model      {wall:.4f} s/inference wall, {cpu:.4f} CPU s "
          f"({row.macs / cpu / 1e9:.2f} G MAC per CPU second); first inference "
          f"{row.first_cpu:.4f} CPU s")
    print(f"  TOSA reference {row.tosa_time.wall:.4f} s/inference wall, "
          f"{row.tosa_time.cpu:.4f} CPU s: {row.ratio:.1f}x the NPU model's CPU time")


def print_summary(rows: list[Row]) -> None:
    print(f"\n{'model':<34} {'NPU':<16} {'NPU model CPU s':>15} {'TOSA ref CPU s':>15} "
          f"{'ratio':>7}  goal >= {GOAL_RATIO:.0f}x")
    for row in rows:
        verdict = "met" if row.ratio >= GOAL_RATIO else "MISSED"
        print(f"{row.model:<34} {row.npu:<16} {row.model_time.cpu:>15.4f} "
              f"{row.tosa_time.cpu:>15.4f} {row.ratio:>6.1f}x  {verdict}")
    versions = ", ".join(f"{name} {version}" for name, version in tool_versions().items())
    print(f"versions: {model_version()}; this process: {versions}; each product's compiler "
          "above its row")


def main(models: str = DEFAULT_MODELS, targets: str = DEFAULT_TARGETS, repeats: int = 3,
         toolset: str | None = None) -> None:
    rows = []
    for model in models.split(","):
        for target in targets.split(","):
            try:
                rows.append(bench_target(model, target, repeats, toolset))
            except OrchestratorError as error:   # the model stops on this program: untimed
                print(f"{model} on {target}: not timed: {error.message}")
                continue
            print_row(rows[-1])
    print_summary(rows)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(*(args[:2]), *(int(a) for a in args[2:3]), *(args[3:4]))  # type: ignore[arg-type]
