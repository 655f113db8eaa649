"""Cache entries verify themselves on use (orchestrator/foundation/cache_check.py): a flipped
byte in a product or a lowering is named in one line and the entry rebuilt, never served."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from aot_cases import needs_executorch

from orchestrator.aot import compile_request, request_for
from orchestrator.aot.lower.store import LOWERING_MANIFEST, lowered_root
from orchestrator.aot.products import MANIFEST, PTE
from orchestrator.foundation.cache_check import RECORD, checked, damage, record_files
from orchestrator.foundation.paths import scratch


def flip_byte(path: Path, offset: int = -1, keep_mtime: bool = False) -> None:
    """Invert one byte in place (size unchanged); optionally put the mtime back."""
    before = path.stat()
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))
    if keep_mtime:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def _entry(tmp_path: Path) -> Path:
    entry = tmp_path / "scratch" / "models" / "k"
    (entry / "inputs").mkdir(parents=True)
    (entry / PTE).write_bytes(bytes(range(256)) * 8)
    (entry / "inputs" / "x.bin").write_bytes(b"\1\2\3")
    (entry / MANIFEST).write_text("{}\n")
    record_files(entry)
    return entry


def test_a_recorded_entry_is_sound_and_a_flipped_byte_is_named(tmp_path):
    entry = _entry(tmp_path)
    (entry / ".lease").write_text("")        # leases are touched on every use: not recorded
    assert damage(entry) is None and damage(entry, full=True) is None
    flip_byte(entry / "inputs" / "x.bin", 0)
    found = damage(entry)
    assert found is not None and found.files == ("inputs/x.bin",)
    assert found.describe("rebuilt") == (
        "scratch/models/k/inputs/x.bin differs from its manifest: rebuilt")


def test_a_missing_or_truncated_file_or_record_is_damage(tmp_path):
    entry = _entry(tmp_path)
    (entry / PTE).write_bytes(b"short")
    assert damage(entry) is not None
    entry = _entry(tmp_path / "again")
    (entry / RECORD).unlink()
    found = damage(entry)
    assert found is not None and found.unrecorded
    assert "records no digests" in found.describe("rebuilt")


def test_a_flip_that_keeps_the_mtime_is_found_by_the_full_scan_only(tmp_path):
    """The use's fast path trusts an unchanged size and mtime (a write moves the mtime);
    the scan (`invoke products --verify`) hashes every file."""
    entry = _entry(tmp_path)
    flip_byte(entry / PTE, 100, keep_mtime=True)
    assert damage(entry) is None
    found = damage(entry, full=True)
    assert found is not None and found.files == (PTE,)


def test_checked_names_the_damage_in_one_line_and_sets_the_entry_aside(tmp_path, capsys):
    entry = _entry(tmp_path)
    flip_byte(entry / PTE)
    assert not checked(entry)
    line = capsys.readouterr().err
    assert line == "scratch/models/k/model.pte differs from its manifest: rebuilt\n"
    assert not entry.exists() and list(entry.parent.iterdir()) == []


@pytest.mark.slow
def test_a_flipped_byte_in_a_product_and_in_a_lowering_is_rebuilt(tmp_path, capsys):
    needs_executorch()
    where = scratch(tmp_path / "scratch").ensure()
    first = compile_request(request_for("add", "ethos-u55-128"), where)
    good = first.pte.read_bytes()
    flip_byte(first.pte, len(good) // 2)
    capsys.readouterr()
    again = compile_request(request_for("add", "ethos-u55-128"), where)
    err = capsys.readouterr().err
    assert f"scratch/models/{first.key}/model.pte differs from its manifest: rebuilt" in err
    assert not again.cached and again.pte.read_bytes() == good
    lowering = lowered_root(where.models) / request_for("add", "ethos-u55-128").lowering_key()
    assert (lowering / LOWERING_MANIFEST).is_file()
    (lowering / PTE).unlink()              # the template: its own file, not the product's
    (lowering / PTE).write_bytes(good[:-1] + bytes([good[-1] ^ 1]))
    other = compile_request(request_for("add", "ethos-u55-32"), where)
    err = capsys.readouterr().err
    assert f"scratch/models/lowered/{lowering.name}/model.pte differs" in err
    assert not other.cached and damage(other.directory, full=True) is None
    assert damage(lowering, full=True) is None, "the lowering was not kept again"


def test_products_verify_hashes_the_whole_cache_and_sets_damage_aside(tmp_path, monkeypatch,
                                                                      capsys):
    """`invoke products --verify` finds what the use's fast path cannot (a flip that kept
    the mtime), in a product and in a runtime build's library."""
    from test_aot_product_cache import make_product

    from orchestrator.commands.products import products_command
    from orchestrator.foundation.paths import USER_CACHE_ENV
    from orchestrator.options.products import ProductsTask

    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path / "cache"))
    where = scratch(tmp_path / "scratch").ensure()
    sound = make_product(where.models, "sound", "ethos-u55-128", 64, 10)
    bad = make_product(where.models, "bad", "ethos-u55-128", 64, 20)
    build = tmp_path / "cache" / "runtime" / "runtime-x"
    build.mkdir(parents=True)
    (build / "libexecutorch_core.a").write_bytes(b"!<arch>\n" * 32)
    for directory in (sound, bad):
        record_files(directory)
    record_files(build, [build / "libexecutorch_core.a"])
    flip_byte(bad / PTE, 3, keep_mtime=True)
    flip_byte(build / "libexecutorch_core.a", 3, keep_mtime=True)
    capsys.readouterr()
    assert products_command(ProductsTask(verify=True), scratch_root=str(where.root)) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == ["scratch/models/bad/model.pte differs from its manifest: set aside "
                   "(rebuilt on next use)",
                   f"{build}/libexecutorch_core.a differs from its manifest: removed "
                   "(rebuilt on next build)",
                   "checked 2 product(s) and lowering(s), 0 toolset(s) and 1 runtime "
                   "build(s): 2 damaged"]
    assert not bad.exists() and sound.is_dir() and not (build / "libexecutorch_core.a").exists()
    assert products_command(ProductsTask(verify=True), json=True,
                            scratch_root=str(where.root)) == 0
