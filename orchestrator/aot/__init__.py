"""AOT stage: PyTorch model -> quantized, partitioned .pte plus reference data and reports.

Importing this package never imports torch or executorch; they are imported on the first
cache miss (see compiler.py). Entry points: compile_model, compile_request, compile_many.
"""

from __future__ import annotations

from orchestrator.aot.api import (
    BatchItem,
    cached_product,
    compile_many,
    compile_model,
    compile_request,
    request_for,
)
from orchestrator.aot.key import CompileRequest
from orchestrator.aot.options import CompileOptions, resolve_options
from orchestrator.aot.products import Product, load_product

__all__ = [
    "BatchItem",
    "CompileOptions",
    "CompileRequest",
    "Product",
    "cached_product",
    "compile_many",
    "compile_model",
    "compile_request",
    "load_product",
    "request_for",
    "resolve_options",
]
