"""A small typed reader over a flatbuffer table (the `flatbuffers` runtime, no generated
code, no torch): fields are named by their index in the schema's table declaration (a union
field takes two indices: its type, then its value)."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from flatbuffers import number_types
from flatbuffers.table import Table

_SCALARS = {"b": number_types.Int8Flags, "B": number_types.Uint8Flags,
            "h": number_types.Int16Flags, "H": number_types.Uint16Flags,
            "i": number_types.Int32Flags, "I": number_types.Uint32Flags,
            "q": number_types.Int64Flags, "Q": number_types.Uint64Flags,
            "d": number_types.Float64Flags, "?": number_types.BoolFlags}


class FlatbufferError(ValueError):
    """The bytes are not a well-formed flatbuffer of the expected schema."""


def file_identifier(data: bytes) -> bytes:
    """The 4-byte file identifier of a flatbuffer (bytes 4..8)."""
    return bytes(data[4:8]) if len(data) >= 8 else b""


@dataclass(frozen=True)
class FlatTable:
    """One table of a flatbuffer."""

    table: Table

    @classmethod
    def root(cls, data: bytes) -> FlatTable:
        """The root table of `data`."""
        if len(data) < 8:
            raise FlatbufferError("shorter than a flatbuffer header")
        (offset,) = struct.unpack_from("<I", data, 0)
        if offset + 4 > len(data):
            raise FlatbufferError("the root offset points past the end")
        return cls(Table(bytearray(data) if not isinstance(data, bytearray) else data, offset))

    def _slot(self, field: int) -> int:
        return int(self.table.Offset(4 + 2 * field))

    def _checked(self, position: int, size: int = 1) -> int:
        if position < 0 or position + size > len(self.table.Bytes):
            raise FlatbufferError("an offset points past the end of the buffer")
        return position

    def scalar(self, field: int, kind: str, default: int | float | bool = 0) -> int | float:
        """A scalar field (struct format letter `kind`)."""
        slot = self._slot(field)
        if not slot:
            return default
        flags = _SCALARS[kind]
        value: int | float = self.table.Get(flags, self._checked(slot + self.table.Pos,
                                                                 flags.bytewidth))
        return value

    def string(self, field: int) -> str:
        """A string field ('' when absent)."""
        slot = self._slot(field)
        if not slot:
            return ""
        self._checked(slot + self.table.Pos, 4)
        return bytes(self.table.String(slot + self.table.Pos)).decode("utf-8", "replace")

    def table_at(self, field: int) -> FlatTable | None:
        """A sub-table field (None when absent)."""
        slot = self._slot(field)
        if not slot:
            return None
        position = self.table.Indirect(self._checked(slot + self.table.Pos, 4))
        return FlatTable(Table(self.table.Bytes, self._checked(position, 4)))

    def _vector(self, field: int) -> tuple[int, int]:
        slot = self._slot(field)
        if not slot:
            return 0, 0
        self._checked(slot + self.table.Pos, 4)
        start = self.table.Vector(slot)
        length = self.table.VectorLen(slot)
        return start, length

    def tables(self, field: int) -> Iterator[FlatTable]:
        """Every table of a vector-of-tables field."""
        start, length = self._vector(field)
        self._checked(start, 4 * length)
        for index in range(length):
            position = self.table.Indirect(start + 4 * index)
            yield FlatTable(Table(self.table.Bytes, self._checked(position, 4)))

    def scalars(self, field: int, kind: str) -> tuple[int | float, ...]:
        """A vector-of-scalars field."""
        start, length = self._vector(field)
        size = struct.calcsize("<" + kind)
        self._checked(start, size * length)
        return struct.unpack_from(f"<{length}{kind}", self.table.Bytes, start)

    def strings(self, field: int) -> tuple[str, ...]:
        """A vector-of-strings field."""
        start, length = self._vector(field)
        self._checked(start, 4 * length)
        return tuple(bytes(self.table.String(start + 4 * index)).decode("utf-8", "replace")
                     for index in range(length))

    def blob(self, field: int) -> bytes:
        """A [ubyte] field as bytes."""
        start, length = self._vector(field)
        return bytes(self.table.Bytes[self._checked(start, length):start + length])

    def blob_span(self, field: int) -> tuple[int, int]:
        """(offset in the buffer, length) of a [ubyte] field."""
        start, length = self._vector(field)
        self._checked(start, length)
        return start, length
