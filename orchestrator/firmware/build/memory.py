"""Per-region memory use of a linked image, from its map file and ELF section types."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from orchestrator.targets.model import Region

if TYPE_CHECKING:   # the readers load only when an image's tables are read (image_tables)
    from orchestrator.firmware.build.elf import ElfImage
    from orchestrator.firmware.build.mapfile import LinkMap, MapSection


@dataclass(frozen=True)
class SectionUse:
    """An allocated output section with its run and load addresses."""

    name: str
    address: int
    size: int
    load_address: int
    region: str | None
    load_region: str | None
    nobits: bool


@dataclass(frozen=True)
class RegionUse:
    """How much of a region the image uses (from the origin to the highest byte, as ld)."""

    name: str
    origin: int
    length: int
    used: int

    @property
    def free(self) -> int:
        return self.length - self.used

    @property
    def percent(self) -> float:
        return 100.0 * self.used / self.length if self.length else 0.0


def _region_of(regions: tuple[Region, ...], address: int) -> Region | None:
    return next((r for r in regions if r.origin <= address < r.origin + r.length), None)


def section_uses(link_map: LinkMap, image: ElfImage) -> list[SectionUse]:
    """Allocated, non-empty sections with their regions (NOBITS sections have no load image)."""
    by_name = {section.name: section for section in image.sections}
    uses = []
    for section in link_map.sections:
        header = by_name.get(section.name)
        if header is None or not header.allocated or section.size == 0:
            continue
        region = _region_of(link_map.regions, section.address)
        load_region = None if header.nobits else _region_of(link_map.regions,
                                                            section.load_address)
        uses.append(SectionUse(section.name, section.address, section.size,
                               section.load_address, region.name if region else None,
                               load_region.name if load_region else None, header.nobits))
    return uses


def _high_water(region: Region, sections: list[SectionUse]) -> int:
    top = region.origin
    for section in sections:
        if section.region == region.name:
            top = max(top, section.address + section.size)
        if section.load_region == region.name and section.load_address != section.address:
            top = max(top, section.load_address + section.size)
    return top - region.origin


def region_uses(link_map: LinkMap, sections: list[SectionUse]) -> list[RegionUse]:
    """Use of every region, in map order."""
    return [RegionUse(r.name, r.origin, r.length, _high_water(r, sections))
            for r in link_map.regions]


def image_sections(sections: list[MapSection | SectionUse]) -> dict[str, int]:
    """Section name -> size (for RunResult.memory.image_sections)."""
    return {section.name: section.size for section in sections}
