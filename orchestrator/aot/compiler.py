"""Compile one request into a product directory (imports torch; called only on a cache miss)."""

from __future__ import annotations

import contextlib
import io
import shutil
import time
import traceback
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.aot import products as layout
from orchestrator.aot.assembly.assemble import delegate_partitions
from orchestrator.aot.assembly.program_info import program_facts
from orchestrator.aot.key import (
    CompileRequest,
    active_toolset,
    tool_versions,
    version_mismatches,
)
from orchestrator.aot.lower.delegation import delegation_report
from orchestrator.aot.lower.etrecord import ETRECORD, edge_copy, save_etrecord
from orchestrator.aot.lower.kernels import missing_kernels
from orchestrator.aot.lower.lowering import Lowered, emit, lower
from orchestrator.aot.models.loading import load_calibration, load_model
from orchestrator.aot.models.nesting import OUTPUT_ROOT, input_names, leaves, named_leaves
from orchestrator.aot.tensors import write_tensor
from orchestrator.aot.vela.report import parse_vela_output
from orchestrator.exact.record import MANIFEST_KEY as EXACT_KEY
from orchestrator.exact.record import ExactRecord
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets import load_catalogue
from orchestrator.targets.cortex_m import cortex_m_record
from orchestrator.tosa.partitions import MANIFEST_KEY as PARTITIONS_KEY
from orchestrator.tosa.partitions import Partition

COMPILE_LOG = "compile.log"
TOSA_PREFIX = "output_tag"   # what ExecuTorch's TOSA backend names each partition's graph


def _tensor_outputs(outputs: Any) -> list[tuple[str, Any]]:
    """The tensor leaves of a model's outputs, each named by its path (`output[0]`)."""
    import torch

    return [(name, leaf) for name, leaf in named_leaves(outputs, OUTPUT_ROOT)
            if isinstance(leaf, torch.Tensor)]


def run_model_named(model: Any, inputs: tuple[Any, ...]) -> list[tuple[str, Any]]:
    """The model's tensor outputs on `inputs` (positional, nested as it takes them), flattened
    in the program's order, each with its path."""
    import torch

    with torch.no_grad():
        return [(name, t.detach().contiguous())
                for name, t in _tensor_outputs(model(*inputs))]


def run_model(model: Any, inputs: tuple[Any, ...]) -> list[Any]:
    return [tensor for _, tensor in run_model_named(model, inputs)]


def _layouts(facts: dict[str, Any], side: str, count: int) -> list[tuple[int, ...] | None]:
    records = facts["methods"].get("forward", {}).get(side, [])
    orders = [tuple(r["dim_order"]) if r.get("kind") == "tensor" else None for r in records]
    return (orders + [None] * count)[:count]


def _write_tensors(folder: Path, tensors: list[Any], orders: list[Any],
                   names: list[str]) -> list[dict[str, Any]]:
    return [write_tensor(folder, index, tensor.contiguous().numpy(), order, name).to_json()
            for index, (tensor, order, name) in enumerate(zip(tensors, orders, names,
                                                              strict=True))]


def write_vela_report(log_text: str, staging: Path) -> dict[str, Any] | None:
    report = parse_vela_output(log_text)
    if not report["partitions"]:
        return None
    layout.write_json(staging / layout.VELA_REPORT, report)
    return report


def _check_runnable(facts: dict[str, Any], request: CompileRequest) -> None:
    operators = [op for method in facts["methods"].values() for op in method["operators"]]
    missing = missing_kernels(operators)
    if missing:
        raise OrchestratorError(
            f"model {request.model.name} needs operators that {request.options.target}'s "
            f"runner has no kernel for: {', '.join(missing)}",
            "change those ops in the model, or quantize it (--quantize int8)")


def _lower_capturing(request: CompileRequest, staging: Path, model: Any, example: Any,
                     samples: list[Any]) -> tuple[Lowered, list[Partition]]:
    """Lower; for a delegated compile also store each partition's TOSA flatbuffer."""
    tosa = staging / layout.TOSA_DIR if request.options.tosa else None
    if not request.options.delegate:
        return lower(model, example, samples, request.options, request.model.name, tosa), []
    from orchestrator.tosa.capture import recording_flatbuffers, store_partitions

    with recording_flatbuffers() as recorded:
        lowered = lower(model, example, samples, request.options, request.model.name, tosa)
    _keep_tosa_only(tosa)
    graph_module = lowered.edge.exported_program().graph_module
    return lowered, store_partitions(graph_module, recorded, staging)


def partition_binaries(graph_module: Any) -> list[bytes]:
    """Each Ethos-U partition's Vela binary, in partition order (capture.store_partitions')."""
    from orchestrator.tosa.capture import ETHOSU_BACKEND, delegate_calls

    return [bytes(lowered.processed_bytes) for _, lowered in delegate_calls(graph_module)
            if lowered.backend_id == ETHOSU_BACKEND]


def calibration_for(request: CompileRequest, example: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The user's calibration files; for a built-in model without them, seeded samples."""
    if not request.calibration and request.model.kind == "builtin":
        from orchestrator.aot.models.zoo import calibration_samples

        return calibration_samples(example)
    return load_calibration(request.calibration, example)


@dataclass
class Saved:
    """What lowering and emitting produced, before the references are written."""

    lowered: Lowered
    program: Any
    float_outputs: list[Any]
    output_names: list[str]
    delegation: dict[str, Any]
    partitions: list[Partition]
    exact_outputs: list[Any] | None
    exact: ExactRecord
    etrecord_problem: str | None = None   # why the product has no ETRecord (None: it has)
    placement: list[tuple[int, int, int]] = field(default_factory=list)  # assemble.py


def _exact(lowered: Lowered, partitions: list[Partition], staging: Path
           ) -> tuple[list[Any] | None, ExactRecord]:
    """The edge program run exactly on the host (before emitting rewrites it to out-ops);
    every op's output is kept for an op-by-op comparison with a device's."""
    from orchestrator.exact.intermediates import INTERMEDIATES, save_intermediates
    from orchestrator.exact.reference import exact_outputs

    intermediates: list[tuple[str, Any]] = []
    outputs, record = exact_outputs(lowered.edge.exported_program(), partitions,
                                    leaves(lowered.inputs), lowered.quantized_model is not None,
                                    intermediates)
    if outputs is not None:
        save_intermediates(staging / INTERMEDIATES, intermediates)
    return outputs, record


def _lower_and_save(request: CompileRequest, staging: Path) -> Saved:
    model, example = load_model(request.model, request.inputs, request.options.torchvision)
    samples = calibration_for(request, example) if request.options.quantize else []
    named_outputs = run_model_named(model, example)
    lowered, partitions = _lower_capturing(request, staging, model, example, samples)
    binaries = partition_binaries(lowered.edge.exported_program().graph_module)
    delegation = delegation_report(lowered.edge.exported_program().graph_module,
                                   request.options.quantize is not None)
    exact_outputs, exact = _exact(lowered, partitions, staging)
    before_emit = edge_copy(lowered.edge)
    program = emit(lowered.edge, request.options, request.model.name)
    (staging / layout.PTE).write_bytes(program.buffer)
    etrecord_problem = save_etrecord(staging / ETRECORD, before_emit, program)
    return Saved(lowered, program, [t for _, t in named_outputs],
                 [name for name, _ in named_outputs], delegation, partitions, exact_outputs, exact,
                 etrecord_problem,
                 delegate_partitions(program.executorch_program, binaries) if binaries else [])


def _write_references(staging: Path, lowered: Lowered, saved: Saved,
                      facts: dict[str, Any]) -> dict[str, Any]:
    """The example inputs (flattened in the program's order) and the host references, every
    tensor named by its path."""
    flat_inputs = leaves(lowered.inputs)
    orders = _layouts(facts, "inputs", len(flat_inputs))
    records = {"inputs": _write_tensors(staging / layout.INPUTS, flat_inputs, orders,
                                        input_names(lowered.inputs))}
    names = saved.output_names
    out_orders = _layouts(facts, "outputs", len(names))
    records["reference_float"] = _write_tensors(staging / layout.REFERENCE_FLOAT,
                                                saved.float_outputs, out_orders, names)
    if lowered.quantized_model is not None:
        quantized_outputs = run_model(lowered.quantized_model, lowered.inputs)
        records["reference_quantized"] = _write_tensors(
            staging / layout.REFERENCE_QUANTIZED, quantized_outputs, out_orders, names)
    if saved.exact_outputs is not None:
        _write_tensors(staging / layout.REFERENCE_EXACT, saved.exact_outputs,
                       _layouts(facts, "outputs", len(saved.exact_outputs)),
                       _fitting(names, len(saved.exact_outputs)))
    return records


def _fitting(names: list[str], count: int) -> list[str]:
    """The names for `count` program outputs (unnamed where the program has others than the
    model: a model returning non-tensors)."""
    return names if len(names) == count else [""] * count


def _keep_tosa_only(folder: Path | None) -> None:
    """The intermediates folder also gets Vela's scratch copies; keep the TOSA graphs."""
    if folder is None or not folder.is_dir():
        return
    for path in folder.iterdir():
        if path.is_dir():
            shutil.rmtree(path)
        elif not path.name.startswith(TOSA_PREFIX):
            path.unlink()


def exited(request: CompileRequest, stop: SystemExit) -> OrchestratorError:
    """A step of the compile that tried to end the process (sys.exit), as one sentence."""
    return OrchestratorError(
        f"compiling {request.model.name} for {request.options.target} stopped: a third-party "
        f"step tried to exit the process (status {stop.code}; Vela does so on arguments it "
        "rejects)", "read the compile log for the step's message, and check --vela-flags / "
        "--vela-config")


def _failure_text(error: BaseException) -> str:
    """The full traceback behind a failure (the one-line error hides the original)."""
    original = error.__context__ if error.__suppress_context__ and error.__context__ else error
    lines = traceback.format_exception(type(original), original, original.__traceback__)
    return "\ncompile failed:\n" + "".join(lines)


def write_log(staging: Path, text: str, caught: list[warnings.WarningMessage]) -> None:
    """Everything the compile printed, then the warnings it raised (kept out of the console)."""
    lines = [f"warning: {w.category.__name__}: {w.message} ({w.filename}:{w.lineno})"
             for w in caught]
    (staging / COMPILE_LOG).write_text(text + "\n".join(lines) + ("\n" if lines else ""))


@contextlib.contextmanager
def captured_output() -> Iterator[tuple[io.StringIO, list[warnings.WarningMessage]]]:
    """Everything lowering prints and warns, kept out of the console (and out of pytest's
    warnings-are-errors): the text and the warnings it raised."""
    captured = io.StringIO()
    with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured), \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield captured, caught


def build_product(request: CompileRequest, staging: Path) -> dict[str, Any]:
    """Compile `request` into `staging` and return its manifest (written last)."""
    started = time.perf_counter()
    with captured_output() as (captured, caught):
        try:
            saved = _lower_and_save(request, staging)
        except SystemExit as stop:   # a third-party step (Vela's argument parser, user code)
            captured.write(_failure_text(stop))
            raise exited(request, stop) from None
        except BaseException as error:
            captured.write(_failure_text(error))
            raise
        finally:
            write_log(staging, captured.getvalue(), caught)
    facts = program_facts(saved.program.executorch_program)
    _check_runnable(facts, request)
    tensors = _write_references(staging, saved.lowered, saved, facts)
    layout.write_json(staging / layout.DELEGATION_REPORT, saved.delegation)
    vela = write_vela_report(captured.getvalue(), staging) if request.options.delegate else None
    manifest = {
        "schema": layout.MANIFEST_SCHEMA,
        "key": request.key(),
        "model": {"name": request.model.name, "kind": request.model.kind,
                  "location": request.model.location, "digest": request.model.digest,
                  **request.model.provenance()},
        "target": request.options.target,
        "options": request.options.to_json(),
        "notes": list(request.options.notes) + version_mismatches()
        + ([saved.etrecord_problem] if saved.etrecord_problem else []),
        "etrecord": None if saved.etrecord_problem else ETRECORD,
        "versions": tool_versions(),
        "toolset": active_toolset()["name"],
        "identity": request.identity(),
        "pte_bytes": (staging / layout.PTE).stat().st_size,
        "program": facts,
        "tensors": tensors,
        "delegation": {k: saved.delegation[k] for k in ("status", "npu_op_count", "cpu_op_count",
                                                   "delegated_partitions")},
        "float_ops_after_quantization": saved.delegation["float_ops_after_quantization"],
        "vela": vela["totals"] if vela else None,
        PARTITIONS_KEY: [partition.to_json(staging) for partition in saved.partitions],
        EXACT_KEY: saved.exact.to_json(),
        "known_issues": saved.lowered.workarounds,   # upstream issues met, each worked around
        "compile_seconds": round(time.perf_counter() - started, 3),
    }
    if request.options.cortex_m:
        manifest["cortex_m"] = cortex_m_record(load_catalogue().target(request.options.target),
                                               request.options.isa)
    manifest["lowering"] = {"key": request.lowering_key(), "lowered_for": request.options.target,
                            "seconds": manifest["compile_seconds"],
                            "delegate_partitions": [list(p) for p in saved.placement]}
    return manifest
