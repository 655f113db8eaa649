"""The NPU model's C sources call one way: no source file calls a function of another
that calls back into it (directly or through others). The dispatchers call the operations,
the operations the register loaders and the output stage, never the reverse."""

from __future__ import annotations

import re
from pathlib import Path

SOURCES = Path(__file__).resolve().parents[2] / "firmware" / "npu_model" / "src"
DEFINITION = re.compile(r"^(?!static)[a-z][\w \*]*?\b(em\w+)\(", re.MULTILINE)


def _calls_between_files() -> dict[str, set[str]]:
    texts = {path.name: path.read_text() for path in sorted(SOURCES.glob("*.c"))}
    defined_in = {name: file for file, text in texts.items()
                  for name in DEFINITION.findall(text)}
    return {file: {defined_in[name] for name in defined_in
                   if defined_in[name] != file and re.search(rf"\b{name}\(", text)}
            for file, text in texts.items()}


def _circle_through(start: str, calls: dict[str, set[str]]) -> list[str] | None:
    paths = [[start]]
    seen: set[str] = set()
    while paths:
        path = paths.pop()
        for callee in sorted(calls[path[-1]]):
            if callee == start:
                return [*path, start]
            if callee not in seen:
                seen.add(callee)
                paths.append([*path, callee])
    return None


def test_the_graph_is_read_from_the_sources() -> None:
    calls = _calls_between_files()
    assert "em85_registers.c" in calls["em85_pool.c"]
    assert "em_conv.c" in calls["em85_ops.c"]


def test_no_source_file_is_on_a_call_circle() -> None:
    calls = _calls_between_files()
    circles = [circle for file in calls if (circle := _circle_through(file, calls))]
    assert circles == [], f"call circles between model sources: {circles}"
