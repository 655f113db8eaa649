"""A TOML file's parse is kept by its bytes (load_toml): read back while the file is unchanged,
parsed again after an edit, and never kept when JSON cannot hold it (a TOML date)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.foundation import tomlfile
from orchestrator.foundation.paths import USER_CACHE_ENV


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(USER_CACHE_ENV, str(folder))
    return folder / "derived"


def kept(cache: Path) -> list[Path]:
    return sorted(cache.glob(f"{tomlfile.TOML_TABLE}-*.json"))


def test_a_parse_is_kept_and_follows_an_edit(tmp_path: Path, cache: Path) -> None:
    data = tmp_path / "data.toml"
    data.write_text('[a]\nx = 1\ny = [1.5, "z"]\n')
    assert tomlfile.load_toml(data) == {"a": {"x": 1, "y": [1.5, "z"]}}
    assert len(kept(cache)) == 1
    assert tomlfile.load_toml(data) == {"a": {"x": 1, "y": [1.5, "z"]}}
    data.write_text('[a]\nx = 2\ny = [1.5, "z"]\n')    # same size, at once
    assert tomlfile.load_toml(data) == {"a": {"x": 2, "y": [1.5, "z"]}}
    assert len(kept(cache)) == 2


def test_the_kept_parse_keeps_the_files_order(tmp_path: Path, cache: Path) -> None:
    data = tmp_path / "ordered.toml"
    data.write_text("[zeta]\nb = 1\na = 2\n[alpha]\nx = 1\n")
    tomlfile.load_toml(data)
    read = tomlfile.load_toml(data)
    assert len(kept(cache)) == 1
    assert list(read) == ["zeta", "alpha"] and list(read["zeta"]) == ["b", "a"]


def test_the_kept_parse_is_what_is_read_back(tmp_path: Path, cache: Path) -> None:
    data = tmp_path / "data.toml"
    data.write_text("x = 1\n")
    tomlfile.load_toml(data)
    (entry,) = kept(cache)
    entry.write_text(entry.read_text().replace('"x": 1', '"x": 7'))
    assert tomlfile.load_toml(data) == {"x": 7}


def test_a_date_is_parsed_each_time_never_kept(tmp_path: Path, cache: Path) -> None:
    data = tmp_path / "dated.toml"
    data.write_text("when = 2026-11-28\n")
    assert str(tomlfile.load_toml(data)["when"]) == "2026-11-28"
    assert kept(cache) == []
