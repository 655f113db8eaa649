"""Generate the NPU model's coverage table (orchestrator/data/npu_coverage.toml) from regor's
sources in the pinned Vela sdist and the curated statuses (npu_coverage_status.toml).

One row per command, field and value (an enum field: each member; a number: one row, value
"*"): whether regor can write it (`regor`), what the model does with it (`model`: implemented,
refused, timing), the tests that exercise it and, for a value the model refuses though regor
can write it, why no graph ExecuTorch 1.4.1 lowers reaches it (`unreached`, with the regor
source that decides it) or, where one can, the open gap (`open`). Run
`python -m orchestrator.npu_model.coverage_gen` after a Vela pin or a status change;
tests/npu_model/test_npu_model_coverage.py fails when the committed table differs from what
the sources give.
"""

from __future__ import annotations

import json
import sys
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation import tomlfile
from orchestrator.foundation.tomlfile import DATA_DIR, Layout, load_data
from orchestrator.npu_model.regor_fields import FAMILIES, Command, family_commands
from orchestrator.npu_model.regor_source import sdist_pin, vela_sdist

TABLE = DATA_DIR / "npu_coverage.toml"
STATUS = DATA_DIR / "npu_coverage_status.toml"
REACHED = DATA_DIR / "npu_coverage_reached.toml"   # the coverage sweep's record
# Every key the curated statuses and the sweep's record may hold, per family ("status" and
# "tests" map a command, field or value key to its status or tests: data, not layout).
STATUS_LAYOUT: dict[str, Layout] = {
    family: dict.fromkeys(("default", "status", "tests", "unreached", "open"), tomlfile.ANY)
    for family in FAMILIES}
REACHED_LAYOUT: dict[str, Layout] = dict.fromkeys(FAMILIES, tomlfile.ANY)
STATUSES = ("implemented", "refused", "timing")
ANY = "*"
TESTS_PER_VALUE = 3   # the sweep's record keeps the first few tests reaching each value
UNKNOWN = "unknown"   # regor's sources name it, npu_coverage_status.toml does not: curate it


@dataclass(frozen=True)
class Row:
    family: str
    command: str
    field: str          # "" for a command without fields
    value: str          # an enum member, or ANY
    number: int | None  # the member's value
    regor: bool         # regor's generators can write it
    model: str
    tests: tuple[str, ...] = ()
    unreached: str = ""  # a refused value regor can write: why ExecuTorch's graphs never do
    open: str = ""       # a refused value an ExecuTorch graph can reach: the gap, named

    @property
    def key(self) -> str:
        return ".".join(p for p in (self.command, self.field, self.value) if p and p != ANY)


def sdist_reader(archive: Path) -> Any:
    """member below the sdist's top directory -> text, one open tarball."""
    tar = tarfile.open(archive, "r:gz")
    top = sdist_pin().top_dir

    def read(member: str) -> str:
        handle = tar.extractfile(f"{top}/{member}")
        assert handle is not None, member
        return handle.read().decode("utf-8")

    return read


def _most_specific(table: dict[str, Any], key: str) -> Any:
    parts = key.split(".")
    for end in range(len(parts), 0, -1):
        found = table.get(".".join(parts[:end]))
        if found is not None:
            return found
    return None


def _rows_of(family: str, command: Command, curated: dict[str, Any],
             reached: dict[str, list[str]] | None = None) -> list[Row]:
    status, tests = curated.get("status", {}), curated.get("tests", {})
    unreached, gaps = curated.get("unreached", {}), curated.get("open", {})
    reached = reached or {}
    entries: list[tuple[str, str, int | None, bool]] = []
    for f in command.fields:
        if f.enum:
            entries += [(f.name, v, n, command.emitted and v in f.emitted)
                        for v, n in zip(f.defined, f.numbers, strict=True)]
        else:
            entries.append((f.name, ANY, None, command.emitted))
    rows = []
    for fname, value, number, regor in entries or [("", ANY, None, command.emitted)]:
        key = ".".join(p for p in (command.name, fname, value) if p and p != ANY)
        # a number takes the family's default; an enum member needs a curated status
        model = _most_specific(status, key) or (curated["default"] if number is None
                                                else UNKNOWN)
        named = [*(_most_specific(tests, key) or ()), *reached.get(key, ())]
        rows.append(Row(family, command.name, fname, value, number, regor, str(model),
                        tuple(dict.fromkeys(named)), str(_most_specific(unreached, key) or ""),
                        str(_most_specific(gaps, key) or "")))
    return rows


def generate(read: Any, curated: dict[str, Any],
             reached: dict[str, Any] | None = None) -> list[Row]:
    """Every row of every family: sources x curated statuses (x the sweep's record)."""
    reached = reached or {}
    return [row for family in FAMILIES for command in family_commands(family, read)
            for row in _rows_of(family, command, curated[family], reached.get(family))]


def merge_reached(jsonl: Path, known: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """The coverage sweep's lines ({test, family, values}) folded into `known` (the committed
    record): a test's line replaces what the record said it reaches; the first
    TESTS_PER_VALUE tests (by name) are kept per value."""
    merged: dict[str, dict[str, list[str]]] = {f: {k: list(v) for k, v in known.get(f, {}).items()}
                                               for f in FAMILIES}
    for line in jsonl.read_text().splitlines():
        run = json.loads(line)
        family = merged[run["family"]]
        for tests in family.values():
            if run["test"] in tests:
                tests.remove(run["test"])
        for command, field, value in run["values"]:
            family.setdefault(f"{command}.{field}.{value}", []).append(run["test"])
    return {f: {k: sorted(set(v))[:TESTS_PER_VALUE] for k, v in sorted(rows.items()) if v}
            for f, rows in merged.items()}


def render_reached(reached: dict[str, dict[str, list[str]]]) -> str:
    lines = ["# GENERATED by `python -m orchestrator.npu_model.coverage_gen --reached FILE` from "
             "the",
             "# coverage sweep's record (tests/npu_model/test_npu_model_coverage_sweep.py, -m "
             "sweep): the",
             "# tests whose compiled streams write each command, field and value.", ""]
    for family, rows in reached.items():
        lines.append(f"[{family}]")
        lines += [f'"{key}" = {_toml_value(tests)}' for key, tests in rows.items()]
        lines.append("")
    return "\n".join(lines)


def unlisted(rows: list[Row], table: dict[str, Any]) -> list[Row]:
    """Rows regor can write that `table` (the committed npu_coverage.toml) does not list with
    a model status, or lists as not written by regor."""
    listed = {(family, str(r["command"]), str(r["field"]), str(r["value"])): r
              for family in FAMILIES for r in table.get(family, [])}
    missing = []
    for row in rows:
        if not row.regor:
            continue
        entry = listed.get((row.family, row.command, row.field, row.value))
        if entry is None or not entry["regor"] or entry["model"] not in STATUSES:
            missing.append(row)
    return missing


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(rows: list[Row], version: str) -> str:
    lines = ["# GENERATED by `python -m orchestrator.npu_model.coverage_gen` from regor's sources",
             f"# in the pinned Vela sdist ({version}) and npu_coverage_status.toml: do not edit.",
             "# One row per command, field and value (value \"*\": any number; number: the",
             "# member's value); regor: its generators can write it; model: what the model does.",
             "", f'vela = "{version}"', ""]
    for row in rows:
        lines.append(f"[[{row.family}]]")
        for name in ("command", "field", "value", "number", "regor", "model", "tests",
                     "unreached", "open"):
            value = getattr(row, name)
            if name in ("tests", "number", "unreached", "open") and value in (None, (), ""):
                continue
            lines.append(f"{name} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def _reached_record() -> dict[str, Any]:
    return load_data(REACHED, REACHED_LAYOUT) if REACHED.is_file() else {}


def table_from_sources(archive: Path | None = None) -> str:
    """The table's text as the pinned sdist, the curated statuses and the sweep's record
    give it."""
    rows = generate(sdist_reader(archive or vela_sdist()), load_data(STATUS, STATUS_LAYOUT),
                    _reached_record())
    return render(rows, sdist_pin().top_dir)


def _write(path: Path, text: str) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(path)
    print(f"wrote {path}")


def main(argv: list[str]) -> int:
    """[--reached SWEEP.jsonl]: fold a coverage sweep's record in first."""
    if argv[:1] == ["--reached"] and len(argv) == 2:
        _write(REACHED, render_reached(merge_reached(Path(argv[1]), _reached_record())))
    elif argv:
        print("usage: python -m orchestrator.npu_model.coverage_gen [--reached SWEEP.jsonl]")
        return 2
    _write(TABLE, table_from_sources())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
