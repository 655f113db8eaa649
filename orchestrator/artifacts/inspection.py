"""`invoke inspect FILE`: what a .pte or .bpte holds (sniffed by its flatbuffer identifier,
not its name) and whether the pinned runtime can run it, each reason it cannot named."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.aot.lower.kernels import kernel_libraries, missing_kernels
from orchestrator.artifacts.bundle import Bundle, is_bundle, read_bundle
from orchestrator.artifacts.ethosu import EthosUDelegate, ethosu_delegate, is_ethosu
from orchestrator.artifacts.flatbuf import file_identifier
from orchestrator.artifacts.program import PROGRAM_ID, Program, ProgramFormatError, read_program
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.pins import python_pin

RUNTIME_PRIMS = ("executorch_prim::", "aten::sym_")


@dataclass(frozen=True)
class Inspection:
    """One artifact: its kind, program, Ethos-U delegates, the target it names and the
    reasons the pinned runtime cannot run it (empty: it can)."""

    path: Path
    kind: str                        # "program" (.pte) or "bundle" (.bpte)
    sha256: str
    size: int
    program: Program
    bundle: Bundle | None
    ethosu: tuple[EthosUDelegate, ...]
    targets: tuple[str, ...]         # the Ethos-U targets its delegates were compiled for
    runtime: str
    reasons: tuple[str, ...]

    @property
    def runnable(self) -> bool:
        return not self.reasons

    @property
    def program_bytes(self) -> bytes:
        """The .pte bytes (a bundle's embedded program)."""
        return self.bundle.program if self.bundle else self.path.read_bytes()

    def to_dict(self) -> dict[str, Any]:
        return inspection_document(self)


def operator_library(op: str) -> str | None:
    """The kernel library that provides `op` in the pinned runtime ('runtime' for the
    primitive ops every runtime has; None: no library of it)."""
    if op.startswith(RUNTIME_PRIMS):
        return "runtime"
    return kernel_libraries().get(op)


def read_artifact(path: Path) -> tuple[str, Program, Bundle | None]:
    """(kind, program, bundle) of a file; one sentence (exit 2) when it is none of them."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise OrchestratorError(f"cannot read {path}: {error.strerror or error}",
                                "check the path, then: invoke inspect FILE") from error
    try:
        if is_bundle(data):
            bundle = read_bundle(data)
            return "bundle", read_program(bundle.program), bundle
        if file_identifier(data)[:2] == PROGRAM_ID[:2]:
            return "program", read_program(data), None
    except ProgramFormatError as error:
        raise OrchestratorError(f"{path} is not a usable ExecuTorch artifact: {error}",
                                "re-export it (to_executorch().buffer, or "
                                "serialize_from_bundled_program_to_flatbuffer), then: "
                                f"invoke inspect {path}") from error
    raise OrchestratorError(
        f"{path} is not an ExecuTorch program or bundled program (its flatbuffer "
        f"identifier is {file_identifier(data)!r}, not ET12 or BP08)",
        "pass a .pte or .bpte written by executorch (to_executorch, or aot_arm_compiler)")


def inspect_artifact(path: Path) -> Inspection:
    """Everything `invoke inspect` reports about the file at `path`."""
    kind, program, bundle = read_artifact(path)
    ethosu = tuple(ethosu_delegate(d.compile_specs, d.data) for d in program.delegates
                   if is_ethosu(d.backend))
    targets = tuple(sorted({t for d in ethosu for t in _delegate_targets(d)}))
    runtime = python_pin("executorch")
    return Inspection(path, kind, hashlib.sha256(path.read_bytes()).hexdigest(),
                      path.stat().st_size, program, bundle, ethosu, targets, runtime,
                      tuple(refusal_reasons(program, ethosu, targets, runtime)))


def _delegate_targets(delegate: EthosUDelegate) -> set[str]:
    named = {delegate.target} if delegate.target else set()
    return named or ({delegate.optimizer.target} if delegate.optimizer else set())


def refusal_reasons(program: Program, ethosu: tuple[EthosUDelegate, ...],
                    targets: tuple[str, ...], runtime: str) -> list[str]:
    """Each reason the pinned runtime (executorch `runtime`) cannot run `program`."""
    reasons = []
    others = sorted({d.backend for d in program.delegates if not is_ethosu(d.backend)})
    if others:
        reasons.append(f"it has a delegate of {', '.join(others)}, a backend the Ethos-U "
                       f"runtime does not register (only EthosUBackend)")
    missing = missing_kernels(list(program.operators))
    if missing:
        reasons.append(f"operators no kernel of ExecuTorch {runtime} provides: "
                       f"{', '.join(missing)}")
    external = sorted({name for d in ethosu for name in d.external_blocks})
    if external:
        reasons.append(f"its Ethos-U delegates keep Vela blocks ({', '.join(external)}) "
                       f"outside the stream as named data (an ExecuTorch 1.5 .ptd), which "
                       f"the {runtime} runtime does not read")
    if len(targets) > 1:
        reasons.append(f"its Ethos-U delegates were compiled for different targets: "
                       f"{', '.join(targets)}")
    for delegate in ethosu:
        compiled = delegate.optimizer.target if delegate.optimizer else None
        if delegate.target and compiled and compiled != delegate.target:
            reasons.append(f"a delegate's compile spec says {delegate.target} but its "
                           f"command stream was compiled for {compiled}")
    return reasons


def _method_document(inspection: Inspection, index: int) -> dict[str, Any]:
    method = inspection.program.methods[index]
    return {
        "name": method.name,
        "inputs": [dict(spec.to_dict(), quantization=q.to_dict() if q else None)
                   for spec, q in zip(method.inputs, _padded(method.input_quantization,
                                                            len(method.inputs)), strict=True)],
        "outputs": [dict(spec.to_dict(), quantization=q.to_dict() if q else None)
                    for spec, q in zip(method.outputs, _padded(method.output_quantization,
                                                              len(method.outputs)), strict=True)],
        "operators": [{"name": op, "library": operator_library(op)}
                      for op in method.operators],
        "delegates": [dict({"backend": d.backend, "bytes": len(d.data),
                            "location": d.location},
                           **({"ethos_u": ethosu_delegate(d.compile_specs, d.data).to_dict()}
                              if is_ethosu(d.backend) else {}))
                      for d in method.delegates],
        "planned_buffers": list(method.planned_buffers),
        "planned_bytes": method.planned_bytes,
    }


def _padded(values: tuple[Any, ...], count: int) -> tuple[Any, ...]:
    return values + (None,) * (count - len(values))


def inspection_document(inspection: Inspection) -> dict[str, Any]:
    """The JSON document of an inspection."""
    bundle = inspection.bundle
    return {
        "file": str(inspection.path), "kind": inspection.kind, "bytes": inspection.size,
        "sha256": inspection.sha256,
        "identifier": "BP08" if bundle else PROGRAM_ID.decode(),
        "program": {"bytes": inspection.program.size, "segments": inspection.program.segments,
                    "constant_bytes": inspection.program.constant_bytes,
                    "named_data": list(inspection.program.named_data)},
        "methods": [_method_document(inspection, i)
                    for i in range(len(inspection.program.methods))],
        "targets": list(inspection.targets),
        "bundle": None if bundle is None else {
            "version": bundle.version,
            "test_suites": [{"method": s.method, "cases": len(s.cases)} for s in bundle.suites]},
        "runtime": {"executorch": inspection.runtime, "runnable": inspection.runnable,
                    "reasons": list(inspection.reasons)},
    }
