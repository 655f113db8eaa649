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


# A branch on the architecture: `arch == 85`, `s->arch != 55`, `85 == arch`.
ARCH_BRANCH = re.compile(r"\barch\s*[!=]=\s*(?:55|65|85)\b|\b(?:55|65|85)\s*[!=]=\s*[\w>-]*arch\b")
PICKER = "em_arch.c"  # the one place that picks an architecture's table (em_arch.h)


def test_the_branch_pattern_finds_what_it_forbids() -> None:
    for line in ("if (s->arch == 85) {", "return arch == 85 ? a : b;", "if (s->arch != 85) return",
                 "if (85 == s->arch)"):
        assert ARCH_BRANCH.search(line), line
    assert not ARCH_BRANCH.search("if (arch != (int)npu->arch)")


def test_shared_sources_hold_no_architecture_branch() -> None:
    """What differs between U55/U65 and U85 comes through the architecture's table (em_arch.h),
    filled by em55_*.c and em85_*.c: the shared em_*.c files never ask which NPU runs."""
    shared = sorted(path for path in SOURCES.glob("em_*.c") if path.name != PICKER)
    assert len(shared) >= 20
    branches = [f"{path.name}:{number}: {line.strip()}" for path in shared
                for number, line in enumerate(path.read_text().splitlines(), 1)
                if ARCH_BRANCH.search(line)]
    assert branches == [], "architecture branches in shared model sources:\n" + "\n".join(branches)


def test_every_table_fills_every_hook() -> None:
    """Each architecture's table (em55_arch.c, em85_arch.c) names every member of em_arch, so a
    new hook cannot be left NULL by one of them."""
    header = (SOURCES / "em_arch.h").read_text()
    struct = re.sub(r"/\*.*?\*/", "", header[header.index("typedef struct em_arch {"):
                                             header.index("} em_arch;")], flags=re.DOTALL)
    members = set(re.findall(r"\(\*(\w+)\)\(|\b(\w+);", struct))
    names = {pointer or plain for pointer, plain in members}
    assert {"run_operation", "fmaps", "conv_done", "reads"} <= names
    for table in ("em55_arch.c", "em85_arch.c"):
        text = (SOURCES / table).read_text()
        table_text = text[text.index("const em_arch em"):]
        filled = set(re.findall(r"^\s*\.(\w+) =", table_text, re.MULTILINE))
        assert filled == names, table
