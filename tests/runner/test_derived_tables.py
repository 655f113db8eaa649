"""Derived tables kept on disk by the content they derive from
(orchestrator.foundation.derived_cache): the portable-kernel table of a source tree is
computed once, read back in a later call, and computed again when a kernel source or
functions.yaml changes; the same on a copy of the real ExecuTorch tree (needs sources, skips
without). The fast derivation names exactly the files the per-op regular-expression search
named."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from orchestrator.foundation.derived_cache import cached_table, stat_digest
from orchestrator.foundation.paths import USER_CACHE_ENV
from orchestrator.runner.kernel_set import (
    FUNCTIONS_YAML,
    KERNEL_DIR,
    _functions,
    derive_portable_kernels,
    portable_kernels,
)

FUNCTIONS = """\
- op: add.out
  kernels:
    - arg_meta: null
      kernel_name: torch::executor::add_out
- op: relu.out
  kernels:
    - arg_meta: null
      kernel_name: torch::executor::relu_out
"""


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every table of these tests lives in the test's own user cache."""
    cache = tmp_path / "user-cache"
    monkeypatch.setenv(USER_CACHE_ENV, str(cache))
    return cache


def _tree(root: Path, files: dict[str, str]) -> Path:
    (root / KERNEL_DIR).mkdir(parents=True)
    (root / FUNCTIONS_YAML).write_text(FUNCTIONS)
    for name, text in files.items():
        (root / KERNEL_DIR / name).write_text(text)
    return root


def _edit(path: Path, text: str) -> None:
    """Write `text` and move the modification time on (a same-tick edit keeps its size)."""
    before = path.stat().st_mtime_ns
    path.write_text(text)
    os.utime(path, ns=(before + 1_000_000_000, before + 1_000_000_000))


def _entries(cache: Path) -> list[Path]:
    return sorted((cache / "derived").glob("portable-kernels-*.json"))


def test_table_is_kept_and_derived_again_when_a_source_changes(tmp_path, own_cache):
    tree = _tree(tmp_path / "executorch", {
        "op_add.cpp": "Tensor& add_out(KernelRuntimeContext& ctx) {}",
        "op_relu.cpp": "Tensor& relu_out_impl() {}\nTensor& relu_out() {}",
        "op_other.cpp": "Tensor& add_outer() {}"})
    first = portable_kernels(tree)
    assert first.files == {"aten::add.out": ("op_add.cpp",), "aten::relu.out": ("op_relu.cpp",)}
    assert len(_entries(own_cache)) == 1
    assert portable_kernels(tree) == first and len(_entries(own_cache)) == 1   # read back
    _edit(tree / KERNEL_DIR / "op_other.cpp", "Tensor& add_out_alias() { add_out(); }")
    edited = portable_kernels(tree)
    assert edited.files["aten::add.out"] == ("op_add.cpp", "op_other.cpp")
    assert len(_entries(own_cache)) == 2


def test_a_new_or_removed_kernel_source_changes_the_key(tmp_path):
    tree = _tree(tmp_path / "executorch", {"op_add.cpp": "add_out"})
    sources = sorted((tree / KERNEL_DIR).glob("op_*.cpp"))
    before = stat_digest(sources)
    (tree / KERNEL_DIR / "op_relu.cpp").write_text("relu_out")
    assert stat_digest(sorted((tree / KERNEL_DIR).glob("op_*.cpp"))) != before
    assert stat_digest(sources, "format-2") != before


def test_an_unreadable_entry_is_derived_again(tmp_path, own_cache):
    calls: list[int] = []

    def compute() -> dict[str, int]:
        calls.append(1)
        return {"a": 1}

    assert cached_table("t", "k", compute) == {"a": 1}
    (own_cache / "derived" / "t-k.json").write_text("{not json")
    assert cached_table("t", "k", compute) == {"a": 1} and len(calls) == 2
    assert cached_table("t", "k", compute) == {"a": 1} and len(calls) == 2


def _executorch_sources() -> Path:
    root = os.environ.get("ETHOSU_ORCH_TEST_SOURCES")
    tree = Path(root) / "executorch" if root else None
    if tree is None or not (tree / KERNEL_DIR).is_dir():
        pytest.skip("needs ExecuTorch sources (set ETHOSU_ORCH_TEST_SOURCES)")
    return tree


def _regex_table(tree: Path, every: int) -> dict[str, list[str]]:
    """Every `every`th op's row as the per-op whole-word search over every kernel source
    derived it (the whole table that way takes seconds)."""
    texts = {path.name: path.read_text(errors="replace")
             for path in sorted((tree / KERNEL_DIR).glob("op_*.cpp"))}
    table = {}
    functions = _functions((tree / FUNCTIONS_YAML).read_text())
    for op, function in list(functions.items())[::every]:
        word = re.compile(rf"\b{re.escape(function)}\b")
        table[op] = [name for name, text in texts.items() if word.search(text)]
    return table


@pytest.mark.needs_sources
def test_copied_source_tree_table_follows_an_edited_kernel(tmp_path, own_cache):
    source = _executorch_sources()
    tree = tmp_path / "executorch"
    shutil.copytree(source / KERNEL_DIR, tree / KERNEL_DIR)
    (tree / FUNCTIONS_YAML).write_text((source / FUNCTIONS_YAML).read_text())
    sources = sorted((tree / KERNEL_DIR).glob("op_*.cpp"))
    derived = derive_portable_kernels(tree / FUNCTIONS_YAML, sources)
    sliced = _regex_table(tree, every=7)
    assert {op: derived[op] for op in sliced} == sliced and len(derived) > 100
    before = portable_kernels(tree)
    assert before.sources(["aten::add.out"]) == ("op_add.cpp",)
    neg = tree / KERNEL_DIR / "op_neg.cpp"
    _edit(neg, neg.read_text() + "\n// now also defines\nTensor& add_out();\n")
    after = portable_kernels(tree)
    assert after.sources(["aten::add.out"]) == ("op_add.cpp", "op_neg.cpp")
    assert len(_entries(own_cache)) == 2


def _settled(path: Path, seconds_ago: float = 60.0) -> None:
    past = path.stat().st_mtime - seconds_ago
    os.utime(path, (past, past))


def test_a_files_memo_is_kept_once_its_stat_has_settled_and_dropped_by_a_write(tmp_path):
    """file_memo (the compiler's identity, a build input's digests): a file whose stat has
    settled is read once; a write moves its stat and it is read again."""
    from orchestrator.foundation.derived_cache import file_memo

    path = tmp_path / "arm-none-eabi-gcc"
    path.write_bytes(b"gcc 12.2.1")
    _settled(path)
    reads: list[bytes] = []

    def digest() -> str:
        reads.append(path.read_bytes())
        return reads[-1].decode()

    assert file_memo("probe", path, digest) == file_memo("probe", path, digest) == "gcc 12.2.1"
    assert len(reads) == 1
    path.write_bytes(b"gcc 13.3.0")                    # the same size, a new stat
    assert file_memo("probe", path, digest) == "gcc 13.3.0" and len(reads) == 2


def test_a_file_written_just_now_is_read_every_time(tmp_path):
    """A second write within the same clock tick could keep size and mtime: a fresh file's
    answer is not kept (git's racy entries)."""
    from orchestrator.foundation.derived_cache import file_memo

    path = tmp_path / "input.tar.gz"
    path.write_bytes(b"one")
    reads: list[int] = []
    for _ in range(3):
        file_memo("probe", path, lambda: reads.append(1) or len(reads))
    assert len(reads) == 3
