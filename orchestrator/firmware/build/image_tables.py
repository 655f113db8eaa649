"""What a built image holds (build id, sections, regions, linker symbols), read from its ELF
and map file once per content (orchestrator.foundation.derived_cache): a rebuild changes the
files, so the tables are read again; an unchanged build reuses them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.firmware.build.memory import RegionUse, SectionUse
from orchestrator.foundation.derived_cache import cached_table, stat_digest

FORMAT = "image-tables-1"
BUILD_CODE = Path(__file__).resolve().parent
READERS = tuple(BUILD_CODE / name for name in ("elf.py", "mapfile.py", "memory.py",
                                               "image_tables.py"))


@dataclass(frozen=True)
class ImageTables:
    """A built image's build id, allocated sections, region use and linker symbols."""

    build_id: str
    sections: tuple[SectionUse, ...]
    regions: tuple[RegionUse, ...]
    symbols: dict[str, int]


def _read(elf: Path, map_file: Path) -> dict[str, Any]:
    """The tables read from the files (the JSON kept for them)."""
    from orchestrator.firmware.build.elf import read_elf
    from orchestrator.firmware.build.mapfile import parse_map
    from orchestrator.firmware.build.memory import region_uses, section_uses

    image, link_map = read_elf(elf), parse_map(map_file)
    sections = section_uses(link_map, image)
    return {"build_id": image.build_id, "sections": [vars(s) for s in sections],
            "regions": [vars(r) for r in region_uses(link_map, sections)],
            "symbols": {name: address for name, address in image.symbols.items()
                        if name.startswith("__eor_")}}


def image_tables(elf: Path, map_file: Path) -> ImageTables:
    """The image's tables, read once per content of its ELF and map file."""
    key = stat_digest([elf, map_file, *READERS], FORMAT)
    table = cached_table("firmware-image", key, lambda: _read(elf, map_file))
    return ImageTables(str(table["build_id"]),
                       tuple(SectionUse(**section) for section in table["sections"]),
                       tuple(RegionUse(**region) for region in table["regions"]),
                       {str(name): int(address) for name, address in table["symbols"].items()})
