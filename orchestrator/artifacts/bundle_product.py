"""Our own product as a .bpte others can check (BP08, what upstream's runner reads): the
compiled program with the compile stage's inputs as the test case and our exact reference
(the lowered program run on the host; the device must match it bit for bit) as the expected
outputs; the float model's outputs are recorded beside it (<name>.bpte.json)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.aot.tensors import TensorFile
from orchestrator.artifacts.bundle import BundledValue, TestCase, TestSuite, write_bundle

if TYPE_CHECKING:
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


def bundle_product(product: Product, destination: Path | None = None) -> Path:
    """Write the product's .bpte (default: model.bpte in the product directory) and its
    sidecar naming the expected outputs' kind and the float reference; return its path."""
    path = destination or product.directory / BUNDLE_NAME
    case = TestCase(tuple(bundled_value(t) for t in product.inputs),
                    tuple(bundled_value(t) for t in product.reference))
    _atomic_write(path, write_bundle(product.pte.read_bytes(), [TestSuite(METHOD, (case,))]))
    sidecar = {"expected_outputs": product.reference_kind,
               "exact": product.reference_kind == "exact",
               "float_reference": [str(t.path) for t in product.reference_float],
               "product": str(product.directory)}
    _atomic_write(path.with_name(path.name + ".json"),
                  (json.dumps(sidecar, indent=2) + "\n").encode())
    return path
