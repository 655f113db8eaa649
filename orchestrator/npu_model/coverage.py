"""The NPU model's coverage table (orchestrator/data/npu_coverage.toml, generated from regor's
sources by orchestrator/npu_model/coverage_gen.py): read it, list it, and place a stop of the model
in it (a known gap, or a value the table does not know, which makes the table wrong)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from orchestrator.foundation import tomlfile
from orchestrator.foundation.tomlfile import DATA_DIR, Layout, load_data

TABLE_PATH = DATA_DIR / "npu_coverage.toml"
FAMILY_OF_ARCH = {55: "u55u65", 65: "u55u65", 85: "u85"}
FAMILIES = ("u55u65", "u85")
# Every key the generated table may hold (one array of rows per family).
_ROW: dict[str, Layout] = {key: tomlfile.ANY for key in (
    "command", "field", "value", "regor", "model", "number", "tests", "unreached", "open")}
TABLE_LAYOUT: dict[str, Layout] = {"vela": tomlfile.ANY, **{family: _ROW for family in FAMILIES}}
ANY = "*"
# a stop names a command, then a field in words, then a number: "NPU_SET_ACTIVATION clip
# range value 5", "NPU_SET_OFM_PRECISION activation_transpose value 2", "NPU_OP_POOL mode 4"
# "NPU_OP_X at word 282" is where the stream stopped, not a field's value
_STOP = re.compile(r"(NPU_[A-Z0-9_]+) (?!at word)([a-z][a-z0-9_ ]*?) (?:value )?(\d+)\b")
_FIELD_WORDS = {"type": "activation_function", "mode": ""}   # U55 message words, "" = the enum


@dataclass(frozen=True)
class Entry:
    family: str
    command: str
    field: str
    value: str
    number: int | None
    regor: bool
    model: str
    tests: tuple[str, ...]
    unreached: str = ""   # a refused value regor can write: why ExecuTorch's graphs never do
    open: str = ""        # a refused value an ExecuTorch graph can reach: the gap, named

    def name(self) -> str:
        return " ".join(p for p in (self.command, self.field, self.value) if p and p != ANY)


@lru_cache(maxsize=1)
def entries() -> tuple[Entry, ...]:
    data = load_data(TABLE_PATH, TABLE_LAYOUT)
    return tuple(_entry(family, row) for family in FAMILIES
                 for row in data.get(family, []) if isinstance(row, dict))


def vela_version() -> str:
    return str(load_data(TABLE_PATH, TABLE_LAYOUT)["vela"])


def _entry(family: str, row: dict[str, Any]) -> Entry:
    number = row.get("number")
    return Entry(family, str(row["command"]), str(row["field"]), str(row["value"]),
                 int(number) if number is not None else None, bool(row["regor"]),
                 str(row["model"]), tuple(str(t) for t in row.get("tests", [])),
                 str(row.get("unreached", "")), str(row.get("open", "")))


def _field_of(rows: list[Entry], words: str) -> str | None:
    fields = {e.field for e in rows}
    wanted = _FIELD_WORDS.get(words, words.replace(" ", "_"))
    named = [f for f in fields if wanted and (f == wanted or f.endswith(wanted))]
    if named:
        return named[0]
    enums = {e.field for e in rows if e.number is not None}
    return enums.pop() if len(enums) == 1 else None


def place_stop(arch: int, message: str) -> str:
    """One clause on a model stop: the table's row for the command, field and value it names
    (a known gap), or that the table does not know it (then the table is wrong); '' when the
    message names no register value (a capacity, a geometry)."""
    match = _STOP.search(message)
    family = FAMILY_OF_ARCH.get(arch)
    if match is None or family is None:
        return ""
    command, words, number = match.group(1), match.group(2), int(match.group(3))
    rows = [e for e in entries() if e.family == family and e.command == command]
    field = _field_of(rows, words) if rows else None
    if field is None:
        return ""
    known = [e for e in rows if e.field == field and e.number == number]
    if not known:
        return (f"the coverage table ({TABLE_PATH.name}) does not list {command} {field} value "
                f"{number}: the table is wrong, regenerate it "
                "(python -m orchestrator.npu_model.coverage_gen) and report it")
    entry = known[0]
    writer = "regor writes it" if entry.regor else "regor never writes it"
    if entry.model == "implemented":   # the value is modelled, what comes with it is not
        return (f"the coverage table lists {entry.name()} ({number}) as implemented: the "
                "model refuses what comes with it here")
    return (f"a known gap: the coverage table lists {entry.name()} ({number}) as "
            f"{entry.model} ({writer}, Vela {vela_version()})")


def summary() -> list[str]:
    """Per family: rows by model status, and by whether regor writes them."""
    lines = []
    for family in FAMILIES:
        rows = [e for e in entries() if e.family == family]
        written = Counter(e.model for e in rows if e.regor)
        never = Counter(e.model for e in rows if not e.regor)
        lines.append(f"{family}: {len(rows)} rows; regor writes: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(written.items()))
                     + "; regor never writes: "
                     + ", ".join(f"{k} {v}" for k, v in sorted(never.items())))
    return lines


def listing(family: str | None = None, model: str | None = None) -> list[str]:
    """One line per row: family, command field value, regor yes/no, status, tests (a refused
    value regor can write: why no ExecuTorch graph reaches it, or the open gap)."""
    lines = []
    for e in entries():
        if (family and e.family != family) or (model and e.model != model):
            continue
        tests = ", ".join(e.tests) if e.tests else (
            f"unreached: {e.unreached}" if e.unreached else f"open: {e.open}" if e.open else "-")
        lines.append(f"{e.family:7} {e.name():70} {'regor' if e.regor else 'never':6} "
                     f"{e.model:12} {tests}")
    return lines
