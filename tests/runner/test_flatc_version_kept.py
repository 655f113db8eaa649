"""`flatc --version` is asked once per binary (path, size, modification time): read back while
the binary is unchanged, asked again when it changes; a binary that does not run is not kept."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orchestrator.runner import host_tools


def _flatc(path: Path, version: str, code: int = 0) -> Path:
    path.write_text(f"#!/bin/sh\necho flatc version {version}\nexit {code}\n")
    path.chmod(0o755)
    return path


def test_flatc_version_is_kept_per_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    monkeypatch.setenv("ETHOSU_ORCH_CACHE_DIR", str(tmp_path / "cache"))
    host_tools.flatc_version.cache_clear()
    flatc = _flatc(tmp_path / "flatc", "24.3.25")
    assert host_tools.flatc_version(flatc) == "24.3.25"
    host_tools.flatc_version.cache_clear()
    asked = host_tools._run_flatc_version
    monkeypatch.setattr(host_tools, "_run_flatc_version", _not_asked)
    assert host_tools.flatc_version(flatc) == "24.3.25"
    monkeypatch.setattr(host_tools, "_run_flatc_version", asked)
    _flatc(flatc, "25.1.21")
    stat = flatc.stat()
    os.utime(flatc, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    host_tools.flatc_version.cache_clear()
    assert host_tools.flatc_version(flatc) == "25.1.21"
    broken = _flatc(tmp_path / "broken", "1.0.0", code=1)
    host_tools.flatc_version.cache_clear()
    assert host_tools.flatc_version(broken) is None
    assert not list((tmp_path / "cache").rglob("flatc-version-*")) or all(
        "1.0.0" not in entry.read_text() for entry in (tmp_path / "cache").rglob("flatc-*"))
    host_tools.flatc_version.cache_clear()


def _not_asked(flatc: Path) -> str | None:
    raise AssertionError(f"{flatc} was asked again")
