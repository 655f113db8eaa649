"""GNU ld map files: memory regions and where each output section landed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from orchestrator.targets.model import Region

_REGION = re.compile(r"^(?P<name>\S+)\s+0x(?P<origin>[0-9a-f]+)\s+0x(?P<length>[0-9a-f]+)")
_SECTION_START = re.compile(r"^(?P<name>\.[^\s]+|[A-Za-z_][^\s]*)(?:\s+(?P<rest>.*))?$")
_PLACEMENT = re.compile(r"^\s*0x(?P<address>[0-9a-f]+)\s+0x(?P<size>[0-9a-f]+)"
                        r"(?:\s+load address 0x(?P<lma>[0-9a-f]+))?")


@dataclass(frozen=True)
class MapSection:
    """An output section: run address (VMA), size and load address (LMA)."""

    name: str
    address: int
    size: int
    load_address: int


@dataclass(frozen=True)
class LinkMap:
    """Regions and output sections of one link."""

    regions: tuple[Region, ...]
    sections: tuple[MapSection, ...]


def _regions(lines: list[str]) -> list[Region]:
    try:
        start = lines.index("Memory Configuration") + 3
    except ValueError:
        return []
    regions = []
    for line in lines[start:]:
        match = _REGION.match(line)
        if not match:
            break
        if match.group("name") != "*default*":
            regions.append(Region(match.group("name"), int(match.group("origin"), 16),
                                     int(match.group("length"), 16)))
    return regions


def _sections(lines: list[str]) -> list[MapSection]:
    try:
        start = lines.index("Linker script and memory map")
    except ValueError:
        return []
    sections = []
    for number in range(start, len(lines)):
        line = lines[number]
        match = _SECTION_START.match(line)
        if not match or line.startswith(("LOAD ", "OUTPUT(", "START GROUP", "END GROUP")):
            continue
        rest = match.group("rest")
        placement = _PLACEMENT.match(f" {rest}" if rest else lines[number + 1]
                                     if number + 1 < len(lines) else "")
        if placement:
            address = int(placement.group("address"), 16)
            lma = placement.group("lma")
            sections.append(MapSection(match.group("name"), address,
                                       int(placement.group("size"), 16),
                                       int(lma, 16) if lma else address))
    return sections


def parse_map(path: Path) -> LinkMap:
    """Parse a map file written with -Wl,-Map."""
    lines = Path(path).read_text(errors="replace").splitlines()
    return LinkMap(tuple(_regions(lines)), tuple(_sections(lines)))
