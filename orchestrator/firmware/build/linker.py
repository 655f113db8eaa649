"""Linker diagnostics turned into one-sentence errors (region overflow above all)."""

from __future__ import annotations

import re
from dataclasses import dataclass

_OVERFLOW = re.compile(r"region [`'](?P<region>[^'`]+)' overflowed by (?P<bytes>\d+) bytes")
_WONT_FIT = re.compile(r"section [`'](?P<section>[^'`]+)' will not fit in region "
                       r"[`'](?P<region>[^'`]+)'")
_ERROR = re.compile(r"(error:|Error |undefined reference|FAILED:|CMake Error)")


@dataclass(frozen=True)
class Overflow:
    """A region the image does not fit in, by how many bytes, and the sections involved."""

    region: str
    bytes_over: int
    sections: tuple[str, ...]

    def describe(self) -> str:
        culprit = f" ({', '.join(self.sections)})" if self.sections else ""
        return f"region {self.region} overflowed by {self.bytes_over} bytes{culprit}"


def find_overflows(output: str) -> list[Overflow]:
    """Every region overflow GNU ld reported, largest first."""
    sections: dict[str, list[str]] = {}
    for match in _WONT_FIT.finditer(output):
        sections.setdefault(match.group("region"), []).append(match.group("section"))
    found = {}
    for match in _OVERFLOW.finditer(output):
        region = match.group("region")
        found[region] = Overflow(region, int(match.group("bytes")),
                                 tuple(dict.fromkeys(sections.get(region, []))))
    return sorted(found.values(), key=lambda overflow: -overflow.bytes_over)


def first_error(output: str) -> str:
    """The first line that looks like an error (or the last non-empty line)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if _ERROR.search(line):
            return line[:300]
    return lines[-1][:300] if lines else "no output"
