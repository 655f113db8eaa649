"""`invoke verify`: every NPU partition on the NPU model and on the TOSA reference model.

Both get the same inputs: the model's own inputs quantized when a partition reads them
directly, and seeded random tensors (which exercise saturation and rounding far more than real
data): 8- and 16-bit inputs (quantized activations) over the whole dtype range, 32-bit and wider
integers (lengths, indices, counts beside the features) over WIDE_INPUT_RANGE, the int16 range,
because TOSA leaves int32 overflow undefined and a model computing `lengths * 2` or a sum of
such inputs overflows on full-range values (the JSON records the ranges drawn). Exact means every
element of every output is equal.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orchestrator.aot.products import VELA_REPORT, Product
from orchestrator.comparison.departure import departure
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model import MODEL_NAME
from orchestrator.npu_model.binstream import VelaProgram, programs_in_pte
from orchestrator.npu_model.budget import ensure_fits
from orchestrator.npu_model.clobber import check_writes
from orchestrator.npu_model.execute import Npu, run_program
from orchestrator.npu_model.hostlib import load_library
from orchestrator.npu_model.locate import locate_departure
from orchestrator.npu_model.transposes import vela_transposes
from orchestrator.npu_model.vela_faults import naming_known_faults
from orchestrator.npu_model.version import model_version
from orchestrator.profile.attach import vela_partitions
from orchestrator.tosa.graph import (
    GraphInterface,
    GraphTensor,
    gather_index_inputs,
    graph_interface,
)
from orchestrator.tosa.partitions import Partition, PartitionTensor, product_partitions
from orchestrator.tosa.random_inputs import draw_inputs, random_range
from orchestrator.tosa.shared_reference import TosaReferences

RANDOM_SEEDS = (0, 1)
ETHOSU_BACKEND = "EthosUBackend"
OBSERVED_ARCHS = (55, 65, 85)   # the observer reports what their operations store (em_observe.c)


@dataclass(frozen=True)
class OutputCheck:
    """One output of one partition for one input set."""

    partition: int
    inputs: str            # "model" or "random-<seed>"
    output: int
    elements: int
    differing: int
    max_difference: int

    @property
    def exact(self) -> bool:
        return self.differing == 0

    def to_json(self) -> dict[str, Any]:
        return {"partition": self.partition, "inputs": self.inputs, "output": self.output,
                "exact": self.exact, "elements": self.elements, "differing": self.differing,
                "max_difference": self.max_difference}


@dataclass
class VerifyReport:
    """The verdict over all partitions; `exact` only when every check is."""

    model: str
    target: str
    npu: str
    quantize: str | None = None
    compile_options: dict[str, Any] = field(default_factory=dict)   # the product's, as chosen
    versions: dict[str, str] = field(default_factory=dict)
    checks: list[OutputCheck] = field(default_factory=list)
    departures: list[dict[str, Any]] = field(default_factory=list)
    write_findings: list[dict[str, Any]] = field(default_factory=list)
    observation_refused: str | None = None
    input_ranges: dict[str, list[int]] = field(default_factory=dict)   # dtype: [min, max] drawn
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def exact(self) -> bool:
        return bool(self.checks) and all(check.exact for check in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"exact": self.exact, "model": self.model, "target": self.target,
                "quantize": self.quantize, "compile_options": self.compile_options,
                "npu": {"executor": MODEL_NAME, "config": self.npu},
                "versions": self.versions,
                "partitions": len({c.partition for c in self.checks}),
                "checks": [check.to_json() for check in self.checks],
                "departures": self.departures,
                "write_findings": self.write_findings,
                "observation_refused": self.observation_refused,
                "random_input_ranges": dict(sorted(self.input_ranges.items())),
                "seconds": {k: round(v, 4) for k, v in self.seconds.items()}}


def random_inputs(interface: GraphInterface, seed: int,
                  index_rows: Mapping[str, int] | None = None) -> list[np.ndarray[Any, Any]]:
    """Seeded tensors of each input's integer dtype over its random_range (the one drawer,
    orchestrator.tosa.random_inputs); an input a GATHER reads as indices (`index_rows`: its
    table's rows) is taken modulo the rows, since TOSA leaves an index outside undefined."""
    for tensor in interface.inputs:
        if np.dtype(tensor.dtype).kind not in "iu":
            raise OrchestratorError(f"partition input {tensor.name} is {tensor.dtype}; the NPU "
                                    "model runs integer graphs", "compile with --quantize int8")
    arrays = draw_inputs(interface.inputs, seed)
    rows = index_rows or {}
    return [np.mod(array, rows[tensor.name]).astype(array.dtype) if tensor.name in rows
            else array for tensor, array in zip(interface.inputs, arrays, strict=True)]


def _quantized(array: np.ndarray[Any, Any], tensor: PartitionTensor,
               graph: GraphTensor) -> np.ndarray[Any, Any] | None:
    quant = tensor.quantization
    if quant is None or array.size != int(np.prod(graph.shape)):
        return None
    values = np.round(array.astype(np.float64) / quant.scale) + quant.zero_point
    clipped: np.ndarray[Any, Any] = np.clip(values, quant.quant_min,
                                            quant.quant_max).astype(graph.dtype)
    if tuple(array.shape) == graph.shape or array.ndim != 4:
        return clipped.reshape(graph.shape)
    channels_last: np.ndarray[Any, Any] = clipped.transpose(0, 2, 3, 1)
    return channels_last.reshape(graph.shape) if channels_last.shape == graph.shape else None


def model_inputs(product: Product, partition: Partition,
                 interface: GraphInterface) -> list[np.ndarray[Any, Any]] | None:
    """The model's own inputs, quantized, when this partition reads exactly those."""
    files = product.inputs
    if len(files) != len(interface.inputs) or len(partition.inputs) != len(files):
        return None
    arrays = []
    for file, tensor, graph in zip(files, partition.inputs, interface.inputs, strict=True):
        raw = np.fromfile(file.path, dtype=np.dtype(file.dtype).newbyteorder("<"))
        quantized = _quantized(raw.reshape(file.shape), tensor, graph)
        if quantized is None:
            return None
        arrays.append(quantized)
    return arrays


def check_partition(index: int, tosa: bytes, program: VelaProgram, npu: Npu,
                    inputs: Sequence[np.ndarray[Any, Any]], label: str,
                    seconds: dict[str, float], references: TosaReferences | None = None
                    ) -> list[OutputCheck]:
    """Run one partition both ways on `inputs` and compare every output (the TOSA side from
    `references` when another configuration of the lowering ran it already)."""
    interface = graph_interface(tosa)
    started = time.perf_counter()
    expected = (references or TosaReferences()).outputs(tosa, inputs)
    seconds["tosa_reference"] = seconds.get("tosa_reference", 0.0) + time.perf_counter() - started
    started = time.perf_counter()
    raw = run_program(program, npu, inputs)
    seconds["npu_model"] = seconds.get("npu_model", 0.0) + time.perf_counter() - started
    checks = []
    for position, (want, data, graph) in enumerate(zip(expected, raw, interface.outputs,
                                                       strict=True)):
        found = departure(np.frombuffer(data, dtype=graph.dtype).reshape(want.shape), want)
        checks.append(OutputCheck(partition=index, inputs=label, output=position,
                                  elements=int(want.size),
                                  differing=found.differing if found else 0,
                                  max_difference=int(found.gap) if found else 0))
    return checks


def _vela_rows(product: Product, index: int) -> list[dict[str, Any]]:
    """Vela's per-operation table of partition `index`, if kept."""
    report = product.directory / VELA_REPORT
    blocks = vela_partitions(report if report.is_file() else None)
    rows: list[dict[str, Any]] = blocks[index].get("operators", []) if index < len(blocks) else []
    return rows


def _vela_names(product: Product, index: int) -> list[str]:
    """Vela's names of partition `index`'s operations (its per-operation table), if kept."""
    return [str(row.get("name")) for row in _vela_rows(product, index)]


def localise(product: Product, partition: Partition, program: VelaProgram, npu: Npu,
             label: str, inputs: Sequence[np.ndarray[Any, Any]],
             seconds: dict[str, float]) -> dict[str, Any]:
    """Where partition `partition` departs on `inputs` (labelled `label`): the first NPU
    operation whose OFM differs from the TOSA reference's tensor, or why none was named."""
    started = time.perf_counter()
    found = locate_departure(partition.tosa, program, npu, inputs,
                             _vela_names(product, partition.index),
                             vela_transposes(_vela_rows(product, partition.index)))
    seconds["localise"] = seconds.get("localise", 0.0) + time.perf_counter() - started
    if found is None:
        return {"partition": partition.index, "inputs": label, "operation": None,
                "note": "every operation whose OFM is a whole TOSA tensor, or channel "
                        "stripes of one, matches it; the departure is in an operation writing "
                        "another part of one (row stripes) or in a tensor Vela keeps internal"}
    return {"partition": partition.index, "inputs": label, **found}


def write_findings(index: int, program: VelaProgram, npu: Npu,
                   inputs: Sequence[np.ndarray[Any, Any]], seconds: dict[str, float]
                   ) -> list[dict[str, Any]]:
    """Partition `index`'s writes over live tensors (findings about the compiled program)."""
    started = time.perf_counter()
    found = check_writes(program, npu, inputs)
    seconds["write_checks"] = seconds.get("write_checks", 0.0) + time.perf_counter() - started
    return [{"partition": index, **clobber.to_json(), "sentence": clobber.sentence()}
            for clobber in found]


def _interface_bytes(partition: Partition) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The byte sizes of a partition's TOSA inputs and outputs, in order."""
    interface = graph_interface(partition.tosa)

    def sizes(tensors: Sequence[GraphTensor]) -> tuple[int, ...]:
        return tuple(int(np.prod(t.shape, dtype=np.int64)) * np.dtype(t.dtype).itemsize
                     for t in tensors)

    return sizes(interface.inputs), sizes(interface.outputs)


def _program_bytes(program: VelaProgram) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (tuple(io.nbytes for io in program.inputs),
            tuple(io.nbytes for io in program.outputs))


def paired_programs(partitions: Sequence[Partition], programs: Sequence[VelaProgram]
                    ) -> list[VelaProgram | None]:
    """Each partition's command stream: the .pte keeps the delegates' data in an order of its
    own (Conformer on U55: the second partition's stream first), so each partition takes the
    first unpaired stream whose inputs and outputs have its TOSA graph's byte sizes (None:
    none has)."""
    free = list(programs)
    paired: list[VelaProgram | None] = []
    for partition in partitions:
        wanted = _interface_bytes(partition)
        found = next((p for p in free if _program_bytes(p) == wanted), None)
        if found is not None:
            free.remove(found)
        paired.append(found)
    return paired


def npu_delegates(product: Product, model: str, target: str
                  ) -> list[tuple[Partition, VelaProgram]]:
    """Every Ethos-U partition of a compiled product with its command stream, in order."""
    partitions = [p for p in product_partitions(product) if p.backend == ETHOSU_BACKEND]
    programs = programs_in_pte(product.pte)
    if not partitions or len(partitions) != len(programs):
        raise OrchestratorError(
            f"{model} for {target} has {len(partitions)} stored Ethos-U partitions and "
            f"{len(programs)} delegates in its program",
            f"recompile it: invoke compile --model {model} --target {target}")
    paired = paired_programs(partitions, programs)
    for partition, program in zip(partitions, paired, strict=True):
        if program is None:
            raise OrchestratorError(
                f"no Ethos-U delegate of {model} for {target} has the inputs and outputs of "
                f"partition {partition.index} ({partition.delegate})",
                f"recompile it: invoke compile --model {model} --target {target}")
    return [(partition, program) for partition, program in zip(partitions, paired, strict=True)
            if program is not None]


def input_sets(product: Product, partition: Partition, seeds: Sequence[int] = RANDOM_SEEDS
               ) -> list[tuple[str, list[np.ndarray[Any, Any]]]]:
    """The labelled inputs a partition is checked on: the model's own (when the partition
    reads exactly those) first, then one seeded random set per seed."""
    interface = graph_interface(partition.tosa)
    own = model_inputs(product, partition, interface)
    rows = gather_index_inputs(partition.tosa)
    return ([("model", own)] if own is not None else []) + [
        (f"random-{seed}", random_inputs(interface, seed, rows)) for seed in seeds]


def observation_refusal(npu: Npu) -> str | None:
    """Why per-operation observation (localisation, write checks) cannot be trusted on this
    NPU, or None. The observer reports what each operation really read and stored on every
    architecture the model runs: on the Ethos-U85 a chained operation's OFM is a chain buffer
    (nothing stored), a transposed OFM is reported with its stored shape and strides (before
    that, mv2 on ethos-u85-2048 was exact yet drew 20 false write findings)."""
    if npu.arch not in OBSERVED_ARCHS:
        return (f"per-operation localisation and write checks are not modelled for {npu.label()} "
                "(the observer does not describe what its operations store)")
    return None


def host_model_ready(seconds: dict[str, float]) -> None:
    """Build and load the NPU model now (once per process), timed as `model_build`, so the
    first stage to run it does not carry the build in its own time."""
    started = time.perf_counter()
    load_library()
    seconds["model_build"] = seconds.get("model_build", 0.0) + time.perf_counter() - started


def product_write_findings(product: Product, npu: Npu, model: str, target: str,
                           seconds: dict[str, float]) -> list[dict[str, Any]]:
    """Every NPU partition's writes over live tensors, each run once on its first input set
    (the model's own inputs where the partition reads them): what `invoke verify` records."""
    refused = observation_refusal(npu)
    if refused:
        raise OrchestratorError(refused, "compare the outputs only (invoke verify reports them)")
    host_model_ready(seconds)
    found: list[dict[str, Any]] = []
    for partition, program in npu_delegates(product, model, target):
        ensure_fits(program, partition.tosa, partition.index)
        found += write_findings(partition.index, program, npu,
                                input_sets(product, partition, seeds=(0,))[0][1], seconds)
    return found


def verify_product(product: Product, npu: Npu, model: str, target: str,
                   seeds: Sequence[int] = RANDOM_SEEDS, locate: bool = True,
                   references: TosaReferences | None = None) -> VerifyReport:
    """Check every Ethos-U partition of a compiled product on the NPU model (`references`:
    the TOSA reference outputs shared with the other configurations of its lowering)."""
    delegates = npu_delegates(product, model, target)
    report = VerifyReport(model=model, target=target, npu=npu.label(),
                          quantize=product.manifest.get("options", {}).get("quantize"),
                          compile_options=product.manifest.get("options", {}),
                          versions={**product.manifest.get("versions", {}),
                                    MODEL_NAME: model_version()})
    report.observation_refused = observation_refusal(npu) if locate else None
    host_model_ready(report.seconds)
    locate = locate and report.observation_refused is None
    with naming_known_faults(product.versions.vela):
        _verify_delegates(product, npu, delegates, report, seeds, locate, references)
    return report


def _verify_delegates(product: Product, npu: Npu,
                      delegates: Sequence[tuple[Partition, VelaProgram]], report: VerifyReport,
                      seeds: Sequence[int], locate: bool, references: TosaReferences | None
                      ) -> None:
    """Each partition: write checks, then every input set both ways (localised if departing)."""
    for partition, program in delegates:
        ensure_fits(program, partition.tosa, partition.index, locate)
        labelled = input_sets(product, partition, seeds)
        report.input_ranges.update({tensor.dtype: list(random_range(tensor.dtype))
                                    for tensor in graph_interface(partition.tosa).inputs})
        if locate:
            report.write_findings += write_findings(partition.index, program, npu,
                                                    labelled[0][1], report.seconds)
        departed = False
        for label, arrays in labelled:
            checks = check_partition(partition.index, partition.tosa, program, npu, arrays,
                                     label, report.seconds, references)
            report.checks += checks
            if locate and not departed and not all(check.exact for check in checks):
                departed = True
                report.departures.append(localise(product, partition, program, npu, label,
                                                  arrays, report.seconds))
