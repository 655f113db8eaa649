"""A small ELF32 little-endian reader: section headers, symbols and the GNU build id."""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError

SHT_SYMTAB = 2
SHT_NOBITS = 8
SHF_ALLOC = 0x2
NT_GNU_BUILD_ID = 3
_HEADER = struct.Struct("<HHIIIIIHHHHHH")
_SECTION = struct.Struct("<IIIIIIIIII")
_SYMBOL = struct.Struct("<IIIBBH")


@dataclass(frozen=True)
class Section:
    """One ELF section header."""

    name: str
    type: int
    flags: int
    address: int
    offset: int
    size: int
    link: int

    @property
    def allocated(self) -> bool:
        return bool(self.flags & SHF_ALLOC)

    @property
    def nobits(self) -> bool:
        return self.type == SHT_NOBITS


@dataclass(frozen=True)
class ElfImage:
    """The parts of an ELF file the build report and the runners need."""

    path: Path
    entry: int
    sections: tuple[Section, ...]
    symbols: dict[str, int]
    build_id: str


def _c_string(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    return table[offset:end if end >= 0 else len(table)].decode("latin-1")


def _sections(data: bytes, shoff: int, shnum: int, shstrndx: int) -> list[Section]:
    raw = [_SECTION.unpack_from(data, shoff + i * _SECTION.size) for i in range(shnum)]
    names_header = raw[shstrndx]
    names = data[names_header[4]:names_header[4] + names_header[5]]
    return [Section(_c_string(names, r[0]), r[1], r[2], r[3], r[4], r[5], r[6]) for r in raw]


def _symbols(data: bytes, sections: list[Section]) -> dict[str, int]:
    table = next((s for s in sections if s.type == SHT_SYMTAB), None)
    if table is None:
        return {}
    strings = sections[table.link]
    names = data[strings.offset:strings.offset + strings.size]
    found = {}
    for offset in range(table.offset, table.offset + table.size, _SYMBOL.size):
        name_offset, value, _, _, _, _ = _SYMBOL.unpack_from(data, offset)
        if name_offset:
            found[_c_string(names, name_offset)] = value
    return found


def _build_id(data: bytes, sections: list[Section]) -> str:
    note = next((s for s in sections if s.name == ".note.gnu.build-id"), None)
    if note is None:
        return ""
    name_size, desc_size, note_type = struct.unpack_from("<III", data, note.offset)
    if note_type != NT_GNU_BUILD_ID:
        return ""
    start = note.offset + 12 + ((name_size + 3) & ~3)
    return data[start:start + desc_size].hex()


def read_elf(path: Path) -> ElfImage:
    """Parse `path`; an error names the file when it is not a 32-bit little-endian ELF."""
    data = Path(path).read_bytes()
    if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
        raise OrchestratorError(f"{path} is not a 32-bit little-endian ELF file",
                                "rebuild it with: invoke build")
    fields = _HEADER.unpack_from(data, 16)
    entry, shoff, shnum, shstrndx = fields[3], fields[5], fields[11], fields[12]
    sections = _sections(data, shoff, shnum, shstrndx)
    return ElfImage(Path(path), entry, tuple(sections), _symbols(data, sections),
                    _build_id(data, sections))
