"""An artifact as a product directory (scratch/artifacts/<sha256 prefix>/): its .pte, the
program facts the runner is sized from (planned memory, Vela scratch, operators) and the
inputs it runs with, so the runner, the sample session and the result tables treat it as
one of our own products. Written atomically, reused by content."""

from __future__ import annotations

import json
from typing import Any

from orchestrator.aot.products import (
    INPUTS,
    MANIFEST,
    MANIFEST_SCHEMA,
    PTE,
    Product,
    discard,
    load_product,
    publish,
    staging_directory,
)
from orchestrator.aot.tensors import write_tensor
from orchestrator.artifacts.inspection import Inspection
from orchestrator.artifacts.program import Method, Program
from orchestrator.foundation.paths import Scratch

ARTIFACTS = "artifacts"
INPUT_SEED = 0


def program_facts(program: Program, scratch_sizes: list[int]) -> dict[str, Any]:
    """The facts our compile stage records for its programs (aot/program_info.py), from a
    program read without torch."""
    return {"methods": {m.name: {"planned_buffers": {str(i + 1): size for i, size
                                                     in enumerate(m.planned_buffers)},
                                 "planned_bytes": m.planned_bytes,
                                 "operators": list(m.operators),
                                 "inputs": [s.to_dict() for s in m.inputs],
                                 "outputs": [s.to_dict() for s in m.outputs]}
                        for m in program.methods},
            "delegates": [{"backend": d.backend, "method": d.method, "blob_bytes": len(d.data)}
                          for d in program.delegates],
            "vela_scratch_bytes": scratch_sizes,
            "max_vela_scratch_bytes": max(scratch_sizes, default=0)}


def generated_inputs(method: Method) -> list[Any]:
    """Deterministic inputs for a program that brings none (seeded uniform [0, 1) floats,
    small integers)."""
    import numpy as np

    generator = np.random.default_rng(INPUT_SEED)
    arrays = []
    for spec in method.inputs:
        if spec.kind != "tensor":
            continue
        dtype = np.dtype(spec.dtype)
        if np.issubdtype(dtype, np.floating):
            arrays.append(generator.random(spec.shape).astype(dtype))
        elif dtype == np.bool_:
            arrays.append(generator.integers(0, 2, spec.shape).astype(dtype))
        else:
            arrays.append(generator.integers(0, 8, spec.shape).astype(dtype))
    return arrays


def manifest_of(inspection: Inspection) -> dict[str, Any]:
    """The product manifest of an artifact."""
    scratch = [d.scratch_bytes for d in inspection.ethosu if d.scratch_bytes]
    return {"schema": MANIFEST_SCHEMA,
            "model": {"name": inspection.path.stem, "kind": "artifact",
                      "file": str(inspection.path), "sha256": inspection.sha256,
                      "artifact_kind": inspection.kind},
            "program": program_facts(inspection.program, scratch),
            "targets": list(inspection.targets), "versions": {},
            "inputs": {"generated": inspection.bundle is None, "seed": INPUT_SEED}}


def import_artifact(inspection: Inspection, work: Scratch) -> Product:
    """The artifact's product directory (made once per content)."""
    root = work.root / ARTIFACTS
    key = inspection.sha256[:20]
    found = load_product(root / key)
    if found is not None:
        return found
    staging = staging_directory(root, key)
    try:
        (staging / PTE).write_bytes(inspection.program_bytes)
        method = inspection.program.methods[0]
        for index, (array, spec) in enumerate(zip(generated_inputs(method), method.inputs,
                                                  strict=False)):
            write_tensor(staging / INPUTS, index, array, spec.dim_order, f"inputs[{index}]")
        (staging / MANIFEST).write_text(json.dumps(manifest_of(inspection), indent=2,
                                                   sort_keys=True) + "\n")
    except BaseException:
        discard(staging)
        raise
    directory = publish(staging, root / key)
    return Product(directory, json.loads((directory / MANIFEST).read_text()))
