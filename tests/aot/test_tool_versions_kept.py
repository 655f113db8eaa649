"""The product key's tool versions are read from package metadata once per state of the import
path's folders: read back while they are unchanged, read again when a package's metadata
folder appears in one of them (an install or upgrade)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.aot import key


def test_tool_versions_are_kept_until_the_import_path_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ETHOSU_ORCH_CACHE_DIR", str(tmp_path / "cache"))
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    key.tool_versions.cache_clear()
    read = key.tool_versions()
    assert read == key._tool_versions()
    monkeypatch.setattr(key, "_tool_versions", _not_read)
    key.tool_versions.cache_clear()
    assert key.tool_versions() == read
    (site / "torch-99.0.dist-info").mkdir()
    stat = site.stat()
    os.utime(site, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    key.tool_versions.cache_clear()
    with pytest.raises(AssertionError, match="read again"):
        key.tool_versions()
    key.tool_versions.cache_clear()


def _not_read() -> dict[str, str]:
    raise AssertionError("the versions were read again")
