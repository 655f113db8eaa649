"""The host NPU-model library kept in the user cache verifies itself on use: a flipped byte
is named in one line and the copy set aside (the scratch build keeps a fresh one again)."""

from __future__ import annotations

from orchestrator.foundation.paths import USER_CACHE_ENV
from orchestrator.npu_model.hostlib import LIBRARY_NAME
from orchestrator.npu_model.hostlib_cache import cached_library, keep_library


def test_a_flipped_byte_in_the_kept_library_is_named_and_set_aside(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path / "cache"))
    built = tmp_path / "build" / LIBRARY_NAME
    built.parent.mkdir()
    built.write_bytes(b"\x7fELF" + bytes(range(200)))
    kept = keep_library(built, "k1")
    assert cached_library("k1", LIBRARY_NAME) == kept
    data = bytearray(kept.read_bytes())
    data[10] ^= 0x04
    kept.write_bytes(bytes(data))
    capsys.readouterr()
    assert cached_library("k1", LIBRARY_NAME) is None
    assert capsys.readouterr().err == (
        f"{kept.parent}/{LIBRARY_NAME} differs from its manifest: rebuilt\n")
    assert not kept.parent.exists()
    assert keep_library(built, "k1").read_bytes() == built.read_bytes()
    assert cached_library("k1", LIBRARY_NAME) == kept
