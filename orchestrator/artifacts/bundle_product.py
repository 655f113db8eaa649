"""Our own product as a .bpte others can check (BP08, what upstream's runner reads): the
compiled program with the compile stage's inputs as the test case (or, with --inputs DIR, one
test case per input set) and our exact reference (the lowered program run on the host; the
device must match it bit for bit) as the expected outputs; the float model's outputs are
recorded beside it (<name>.bpte.json names them; for input sets, <name>.bpte.float.npz)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.aot.tensors import TensorFile, stored_bytes
from orchestrator.artifacts.bundle import BundledValue, TestCase, TestSuite, write_bundle

if TYPE_CHECKING:
    from orchestrator.aot.key import CompileRequest
    from orchestrator.aot.products import Product

BUNDLE_NAME = "model.bpte"
METHOD = "forward"


def bundled_value(tensor: TensorFile) -> BundledValue:
    """A stored tensor as a bundled tensor (both keep the bytes in the tensor's dim order)."""
    return BundledValue("tensor", tensor.dtype, tuple(tensor.shape), tuple(tensor.dim_order),
                        tensor.path.read_bytes())


def _atomic_write(path: Path, data: bytes) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def _write(product: Product, path: Path, cases: list[TestCase],
           sidecar: dict[str, Any]) -> Path:
    _atomic_write(path, write_bundle(product.pte.read_bytes(), [TestSuite(METHOD,
                                                                         tuple(cases))]))
    _atomic_write(path.with_name(path.name + ".json"),
                  (json.dumps({**sidecar, "cases": len(cases),
                               "product": str(product.directory)}, indent=2) + "\n").encode())
    return path


def bundle_product(product: Product, destination: Path | None = None) -> Path:
    """Write the product's .bpte (default: model.bpte in the product directory) and its
    sidecar naming the expected outputs' kind and the float reference; return its path."""
    path = destination or product.directory / BUNDLE_NAME
    case = TestCase(tuple(bundled_value(t) for t in product.inputs),
                    tuple(bundled_value(t) for t in product.reference))
    return _write(product, path, [case],
                  {"expected_outputs": product.reference_kind,
                   "exact": product.reference_kind == "exact",
                   "float_reference": [str(t.path) for t in product.reference_float]})


def _value(array: Any, order: tuple[int, ...]) -> BundledValue:
    return BundledValue("tensor", array.dtype.name, tuple(array.shape), order,
                        stored_bytes(array, order))


def bundle_input_sets(product: Product, request: CompileRequest, inputs: str,
                      destination: Path | None = None) -> Path:
    """The product's .bpte with one test case per input set of `inputs` (a tensor file or a
    directory, read as invoke run --inputs reads it), each expecting its exact reference
    (the float model's where the product has no exact program: the sidecar says which);
    the float references are kept beside it (<name>.bpte.float.npz)."""
    import numpy as np

    from orchestrator.evaluate.evaluate import checked_inputs, input_sets_of
    from orchestrator.foundation.command_line import invoke_line

    data = input_sets_of(inputs)
    rerun = invoke_line("compile", model=request.model.name, target=request.options.target,
                        inputs=inputs, bundle=True)
    _, references, device_sets = checked_inputs(data, request, product, rerun)
    in_orders = [tuple(t.dim_order) for t in product.inputs]
    out_orders = [tuple(t.dim_order) for t in product.reference]
    cases, floats, kinds = [], {}, set()
    for index, ((exact, float_outputs), device) in enumerate(zip(references, device_sets,
                                                                 strict=True)):
        expected = exact if exact is not None else float_outputs
        kinds.add("exact" if exact is not None else "float")
        cases.append(TestCase(
            tuple(BundledValue("tensor", t.dtype, t.shape, order, t.data)
                  for t, order in zip(device, in_orders, strict=True)),
            tuple(_value(np.asarray(a), order)
                  for a, order in zip(expected, out_orders, strict=True))))
        floats.update({f"case{index}_output{j}": np.asarray(a)
                       for j, a in enumerate(float_outputs)})
    path = destination or product.directory / BUNDLE_NAME
    float_file = path.with_name(path.name + ".float.npz")
    partial = float_file.with_name(f".{float_file.name}.{os.getpid()}.partial.npz")
    np.savez(partial, **floats)
    os.replace(partial, float_file)
    return _write(product, path, cases,
                  {"expected_outputs": "exact" if kinds == {"exact"} else "/".join(sorted(kinds)),
                   "exact": kinds == {"exact"}, "inputs": inputs,
                   "input_files": [str(f) for f in data.files],
                   "float_reference": str(float_file)})
