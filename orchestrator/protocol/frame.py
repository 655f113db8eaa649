"""One protocol line: `@@EOR1 <type> <key>=<value>... *<crc32>`, found anywhere in a line."""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass
from urllib.parse import quote, unquote

PROTOCOL_VERSION = 1
MAGIC = f"@@EOR{PROTOCOL_VERSION} "
_PLAIN = "._-,:/+"
_BODY = re.compile(r"(?P<body>[a-z][a-z0-9_]*(?: [A-Za-z0-9_]+=[^\s*]*)*) \*(?P<crc>[0-9a-f]{8})")
_TYPE = re.compile(r"[a-z][a-z0-9_]*")
_KEY = re.compile(r"[A-Za-z0-9_]+")


@dataclass(frozen=True)
class Frame:
    """A checked record: its type and its fields (values unescaped)."""

    type: str
    fields: dict[str, str]


class FrameError(ValueError):
    """A line carried the protocol marker but is not a valid frame (reason in the message)."""


def crc32_hex(body: str) -> str:
    """The checksum the firmware appends: zlib CRC-32 of the body, 8 lowercase hex digits."""
    return f"{zlib.crc32(body.encode('utf-8', 'replace')) & 0xFFFFFFFF:08x}"


def escape(value: str) -> str:
    """Percent-escape everything but [A-Za-z0-9._-,:/+] (as the C emitter does)."""
    return quote(value, safe=_PLAIN)


def encode_frame(record_type: str, fields: dict[str, object]) -> str:
    """The line the firmware would print for this record (without the newline)."""
    if not _TYPE.fullmatch(record_type):
        raise ValueError(f"bad record type {record_type!r}")
    parts = [record_type]
    for key, value in fields.items():
        if not _KEY.fullmatch(key):
            raise ValueError(f"bad field name {key!r}")
        parts.append(f"{key}={escape(str(value))}")
    body = " ".join(parts)
    return f"{MAGIC}{body} *{crc32_hex(body)}"


def find_frame_text(line: str) -> str | None:
    """The text after the last protocol marker in `line` (None when there is no marker)."""
    position = line.rfind(MAGIC)
    return None if position < 0 else line[position + len(MAGIC):]


def decode_frame(line: str) -> Frame | None:
    """The frame in `line`; None for ordinary text; FrameError for a damaged frame."""
    text = find_frame_text(line)
    if text is None:
        return None
    match = _BODY.match(text.strip())
    if match is None:
        raise FrameError("malformed frame")
    body = match.group("body")
    if crc32_hex(body) != match.group("crc"):
        raise FrameError("checksum mismatch")
    record_type, *tokens = body.split(" ")
    fields = {}
    for token in tokens:
        key, _, value = token.partition("=")
        fields[key] = unquote(value, encoding="latin-1")
    return Frame(record_type, fields)
