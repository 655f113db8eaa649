"""Is a file a text console log at all? (A binary file is named as such, not parsed.)"""

from __future__ import annotations

from pathlib import Path

SAMPLE_BYTES = 64 * 1024
MAX_NON_TEXT_SHARE = 0.3
TEXT_CONTROLS = frozenset(b"\t\n\r\x07\x08\x0c\x1b")


def not_text_reason(path: Path) -> str | None:
    """Why `path` is not a text log (NUL bytes, mostly non-text bytes), or None if it is one."""
    with path.open("rb") as handle:
        sample = handle.read(SAMPLE_BYTES)
    if b"\0" in sample:
        return "it holds NUL bytes"
    if not sample:
        return None
    controls = sum(1 for byte in sample if byte < 0x20 and byte not in TEXT_CONTROLS)
    undecodable = sample.decode("utf-8", errors="replace").count("\ufffd")
    if (controls + undecodable) / len(sample) > MAX_NON_TEXT_SHARE:
        return "it is mostly non-text bytes"
    return None


def not_a_text_log(path: Path, reason: str) -> str:
    """The one-line description of a binary file given as a log."""
    return f"{path} is not a text log ({reason})"
