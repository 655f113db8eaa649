"""Which portable kernels a runtime build compiles and registers.

Three kinds of kernel set (orchestrator/data/runner.toml [kernel_sets]):
  "ALL"    every portable kernel (one ELF runs any CPU model; the full, slow build),
  a list   a fixed set the user pinned (a model needing more is refused before simulating),
  "MODEL"  the set grows with the models run: it starts with the first model's ops and adds
           a new model's missing ops (a reconfigure plus one source file per op), never
           rebuilding what is there.
Only the sources that define the selected ops are compiled (the op -> file table comes from
the source tree's kernels/portable/functions.yaml and the kernel function each file defines);
quantized and Cortex-M (CMSIS-NN) kernels are always registered."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.derived_cache import cached_table, stat_digest
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets.runner_data import ALL, MODEL

NONE = "NONE"
FUNCTIONS_YAML = Path("kernels/portable/functions.yaml")
KERNEL_DIR = Path("kernels/portable/cpu")
GROWN_FILE = "kernel-set.json"
_ENTRY = re.compile(r"^- (?:op|func):\s*([A-Za-z0-9_:.]+)")
_KERNEL = re.compile(r"^\s+kernel_name:\s*(\S+)")
_WORD = re.compile(r"\w+")
TABLE_FORMAT = "portable-kernels-1"   # bump when the table's derivation changes


@dataclass(frozen=True)
class PortableKernels:
    """Every portable op of a source tree and the kernel sources that define it."""

    files: dict[str, tuple[str, ...]]

    def portable(self, operators: Iterable[str]) -> set[str]:
        """The operators among `operators` that are portable kernels."""
        return {op for op in operators if op in self.files}

    def sources(self, ops: Iterable[str]) -> tuple[str, ...]:
        """Kernel source files (relative to kernels/portable/cpu) the ops need, sorted."""
        return tuple(sorted({name for op in ops for name in self.files.get(op, ())}))


def _qualified(name: str) -> str:
    return name if "::" in name else f"aten::{name}"


def _functions(yaml_text: str) -> dict[str, str]:
    """op -> kernel function name (unqualified) from functions.yaml, read line by line."""
    functions: dict[str, str] = {}
    op = None
    for line in yaml_text.splitlines():
        entry = _ENTRY.match(line)
        if entry:
            op = _qualified(entry.group(1))
            continue
        kernel = _KERNEL.match(line)
        if kernel and op is not None:
            functions.setdefault(op, kernel.group(1).rsplit("::", 1)[-1])
    return functions


def portable_kernels(executorch: Path) -> PortableKernels:
    """The op -> source table of the ExecuTorch tree at `executorch` (an installed package,
    which has functions.yaml but no kernel sources, gives every op an empty file list); kept
    on disk by a digest of the sources' stat (orchestrator.foundation.derived_cache): an
    edited kernel source or functions.yaml derives it again."""
    yaml_path = executorch / FUNCTIONS_YAML
    if not yaml_path.is_file():
        raise OrchestratorError(f"{executorch} has no {FUNCTIONS_YAML}",
                                "invoke setup --only sources --force")
    sources = sorted((executorch / KERNEL_DIR).glob("op_*.cpp"))
    key = stat_digest([yaml_path, *sources], f"{TABLE_FORMAT}\0{executorch}")
    table = cached_table("portable-kernels", key,
                         lambda: derive_portable_kernels(yaml_path, sources))
    return PortableKernels({op: tuple(files) for op, files in table.items()})


def derive_portable_kernels(yaml_path: Path, sources: list[Path]) -> dict[str, list[str]]:
    """op -> the kernel sources (file names) that name its kernel function as a whole word."""
    texts = {path.name: path.read_text(errors="replace") for path in sources}
    words = {name: set(_WORD.findall(text)) for name, text in texts.items()}
    return {op: [name for name in texts if _names(function, texts[name], words[name])]
            for op, function in _functions(yaml_path.read_text()).items()}


def _names(function: str, text: str, words: set[str]) -> bool:
    """Does `text` name `function` as a whole word (`words`: the text's \\w+ runs, which
    answer for an identifier without a search)?"""
    if _WORD.fullmatch(function):
        return function in words
    return re.search(rf"\b{re.escape(function)}\b", text) is not None


def selected_ops(kernel_set: tuple[str, ...] | str, model_ops: Iterable[str],
                 grown: Iterable[str], table: PortableKernels) -> tuple[str, ...] | str:
    """The ops one runtime build registers: ALL, the pinned list, or grown + the model's."""
    if kernel_set == ALL:
        return ALL
    if kernel_set == MODEL:
        return tuple(sorted(set(grown) | table.portable(model_ops)))
    return tuple(sorted(kernel_set))


def missing_from(ops: tuple[str, ...] | str, model_ops: Iterable[str],
                 table: PortableKernels) -> list[str]:
    """Portable ops the model needs that the selected set lacks (none for ALL)."""
    if ops == ALL:
        return []
    return sorted(table.portable(model_ops) - set(ops))


def read_grown(build_dir: Path) -> tuple[str, ...]:
    """The ops a growing runtime build already has (none before its first build)."""
    path = build_dir / GROWN_FILE
    if not path.is_file():
        return ()
    return tuple(json.loads(path.read_text()).get("ops", []))


def write_grown(build_dir: Path, ops: tuple[str, ...], sources: tuple[str, ...]) -> None:
    """Record what a growing runtime build now registers (after a successful build)."""
    (build_dir / GROWN_FILE).write_text(json.dumps({"ops": list(ops),
                                                    "sources": list(sources)}, indent=1))


def cmake_ops(ops: tuple[str, ...] | str) -> str:
    """ET_KERNEL_OPS for the runtime project: ALL, NONE or a ;-list."""
    if ops == ALL:
        return ALL
    return ";".join(ops) if ops else NONE
