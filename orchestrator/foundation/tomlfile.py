"""TOML loading that works on Python 3.10 (tomli) and 3.11+ (tomllib), and the one check a
data file's loader gives its keys: a key the file's layout does not name (a misspelling) is
refused in one sentence naming the file and the key, never dropped."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TypeAlias

from orchestrator.foundation.errors import OrchestratorError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"


def load_toml(path: Path) -> dict[str, Any]:
    """Parse one TOML file into a dict. The parse is kept by the file's bytes (their digest,
    foundation.derived_cache) when it is plain JSON data (no TOML dates): an unchanged file
    costs a read and a JSON load, not a TOML parse (tomllib is pure Python; the data files a
    warm run reads took ~30x longer to parse than to read back)."""
    import hashlib

    from orchestrator.foundation.derived_cache import read_table

    text = path.read_bytes()
    key = hashlib.sha256(text).hexdigest()[:24]
    try:
        kept = read_table(TOML_TABLE, key)
    except OrchestratorError:   # no cache folder to read (no scratch): parse
        kept = None
    if isinstance(kept, dict):
        return kept
    data = parse_toml(text.decode())
    _keep_parse(key, data)
    return data


def parse_toml(text: str) -> dict[str, Any]:
    """TOML text parsed (tomllib imported here: its import compiles regexes that a warm run,
    served from kept parses, never needs)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised only on 3.10
        import tomli as tomllib
    return tomllib.loads(text)


TOML_TABLE = "toml-2"


def _keep_parse(key: str, data: dict[str, Any]) -> None:
    """Keep a parse for load_toml when JSON holds it exactly."""
    import json

    from orchestrator.foundation.derived_cache import keep_table

    try:
        json.dumps(data, allow_nan=False)
    except (TypeError, ValueError):
        return      # a TOML date/time, inf or nan: parsed again each time
    keep_table(TOML_TABLE, key, data, keep_order=True)


# A file's layout: each known key -> its own layout (a table's keys), or ANY (a value, or a table
# whose keys are data: names, families). EACH names a table of named entries (each with the
# layout under it).
ANY = None
EACH = "*"
Layout: TypeAlias = "dict[str, Layout] | None"


def load_data(path: Path, layout: dict[str, Layout], source: str | None = None) -> dict[str, Any]:
    """Parse one data file and check its keys against `layout` (unknown_keys); `source` is
    how the next step names the file (default: orchestrator/data/<name>)."""
    data = load_toml(path)
    check_keys(data, layout, path.name, source)
    return data


def check_keys(data: dict[str, Any], layout: dict[str, Layout], file: str,
               source: str | None = None) -> None:
    """Refuse the first key `layout` does not name, in one sentence naming the file, the table
    the key sits in, the key and the keys known there."""
    unknown = unknown_keys(data, layout)
    if unknown:
        path, known = unknown[0]
        table, _, key = path.rpartition(".")
        where = f"in table [{table}]" if table else "at the top level"
        raise OrchestratorError(
            f"{file}: unknown key '{key}' {where} (known there: {', '.join(known)})",
            f"fix the key in {source or f'orchestrator/data/{file}'}, or add it to the "
            "layout its loader declares")


def unknown_keys(data: dict[str, Any], layout: dict[str, Layout], prefix: str = ""
                 ) -> list[tuple[str, list[str]]]:
    """(dotted path, known keys there) of every key the layout does not name."""
    found: list[tuple[str, list[str]]] = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if EACH in layout:
            sub = layout[EACH]
        elif key in layout:
            sub = layout[key]
        else:
            found.append((path, sorted(layout)))
            continue
        if sub is not None and isinstance(value, dict):
            found += unknown_keys(value, sub, f"{path}.")
        elif sub is not None and isinstance(value, list):
            for index, item in enumerate(value):
                if isinstance(item, dict):
                    found += unknown_keys(item, sub, f"{path}[{index}].")
    return found

