"""Which operators the firmware runner can execute: the kernel lists it is built from."""

from __future__ import annotations

import importlib.util
import re
from functools import lru_cache
from pathlib import Path

# The runner links these registration libraries (upstream arm_executor_runner): portable
# aten kernels, the quantized_decomposed kernels and the Cortex-M (CMSIS-NN) kernels.
KERNEL_YAMLS = (
    ("kernels/portable/functions.yaml", "aten"),
    ("kernels/quantized/quantized.yaml", None),
    ("backends/cortex_m/ops/operators.yaml", None),
)
KERNEL_LIBRARIES = ("portable", "quantized", "cortex_m")   # the library of each yaml above
PRIM_PREFIXES = ("executorch_prim::", "aten::sym_")
_ENTRY = re.compile(r"^- (?:op|func):\s*([A-Za-z0-9_:.]+)")


def executorch_root() -> Path | None:
    """The installed executorch package directory (found without importing it)."""
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def _entries(path: Path, namespace: str | None) -> set[str]:
    names = set()
    for line in path.read_text().splitlines():
        match = _ENTRY.match(line)
        if match:
            name = match.group(1)
            names.add(name if "::" in name or namespace is None else f"{namespace}::{name}")
    return names


@lru_cache(maxsize=1)
def runner_kernels() -> frozenset[str]:
    """'ns::op.overload' for every kernel the runner can be built with (empty if unknown)."""
    root = executorch_root()
    names: set[str] = set()
    for relative, namespace in KERNEL_YAMLS:
        path = root / relative if root else None
        if path and path.is_file():
            names |= _entries(path, namespace)
    return frozenset(names)


@lru_cache(maxsize=1)
def kernel_libraries() -> dict[str, str]:
    """'ns::op.overload' -> the kernel library that provides it (portable, quantized,
    cortex_m); empty if the installed package's kernel lists are not found."""
    root = executorch_root()
    found: dict[str, str] = {}
    for (relative, namespace), library in zip(KERNEL_YAMLS, KERNEL_LIBRARIES, strict=True):
        path = root / relative if root else None
        if path and path.is_file():
            found.update(dict.fromkeys(_entries(path, namespace), library))
    return found


def missing_kernels(operators: list[str]) -> list[str]:
    """Operators of a program that no runner kernel implements (prim ops always exist)."""
    known = runner_kernels()
    if not known:
        return []
    return sorted({op for op in operators
                   if not op.startswith(PRIM_PREFIXES) and op not in known})
