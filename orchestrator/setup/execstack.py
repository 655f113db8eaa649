"""glibc and the FVP's executable-stack libraries: which fix this host's glibc takes.

glibc 2.41 made dlopen refuse a library whose PT_GNU_STACK asks for an executable stack
("cannot enable executable stack as shared object requires: Invalid argument"), which the
Corstone FVPs' libarmctmodel.so does. glibc 2.42 added the value 2 of the tunable
glibc.rtld.execstack to allow it again; 2.41 knows the tunable but not that value. So:
glibc >= 2.42 starts the FVP with GLIBC_TUNABLES=glibc.rtld.execstack=2 (nothing on disk
changes); older glibc gets the executable-stack request cleared in the FVP's own libraries
(PF_X of PT_GNU_STACK, what `execstack -c` / `patchelf --clear-execstack` do), which every
glibc accepts. Setup records which fix it applied."""

from __future__ import annotations

import os
import struct
from pathlib import Path

EXECSTACK_TUNABLE = "glibc.rtld.execstack=2"
TUNABLE_FROM = (2, 42)
TUNABLE = "tunable"          # GLIBC_TUNABLES=glibc.rtld.execstack=2
CLEAR_FLAG = "clear_flag"    # PF_X cleared in PT_GNU_STACK of the FVP's shared libraries

PT_GNU_STACK = 0x6474E551
PF_X = 0x1


def glibc_version(text: str | None = None) -> tuple[int, int] | None:
    """(major, minor) of this host's glibc ('glibc 2.36' from confstr), None without glibc."""
    if text is None:
        try:
            text = os.confstr("CS_GNU_LIBC_VERSION")
        except (ValueError, OSError):
            return None
    parts = (text or "").split()
    if len(parts) != 2 or parts[0] != "glibc":
        return None
    numbers = parts[1].split(".")
    try:
        return int(numbers[0]), int(numbers[1])
    except (IndexError, ValueError):
        return None


def execstack_fix(version: tuple[int, int] | None) -> str:
    """The fix that works on this glibc: the tunable from 2.42, clearing the flag before."""
    return TUNABLE if version is not None and version >= TUNABLE_FROM else CLEAR_FLAG


def host_execstack_fix() -> str:
    """The fix for this host's glibc."""
    return execstack_fix(glibc_version())


def clear_execstack(path: Path) -> bool:
    """Clear PF_X in `path`'s PT_GNU_STACK header; True when the file was changed."""
    with path.open("r+b") as handle:
        ident = handle.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF" or ident[4] not in (1, 2):
            return False
        wide, order = ident[4] == 2, "<" if ident[5] == 1 else ">"
        header = handle.read(48 if wide else 36)
        fields = struct.unpack(order + ("HHIQQQIHHHHHH" if wide else "HHIIIIIHHHHHH"), header)
        phoff, phentsize, phnum = fields[4], fields[8], fields[9]
        for index in range(phnum):
            entry = phoff + index * phentsize
            handle.seek(entry)
            p_type = struct.unpack(order + "I", handle.read(4))[0]
            if p_type != PT_GNU_STACK:
                continue
            flags_at = entry + (4 if wide else 24)   # p_flags: 2nd field (64) / 7th (32)
            handle.seek(flags_at)
            flags = struct.unpack(order + "I", handle.read(4))[0]
            if not flags & PF_X:
                return False
            handle.seek(flags_at)
            handle.write(struct.pack(order + "I", flags & ~PF_X))
            return True
    return False


def clear_execstack_under(root: Path) -> list[Path]:
    """Clear the flag in every shared library under `root`; the ones that were changed."""
    changed = []
    for path in sorted(root.rglob("*.so*")):
        if path.is_file() and not path.is_symlink() and clear_execstack(path):
            changed.append(path)
    return changed


def apply_execstack_fix(fix: str, libraries: Path) -> dict[str, str]:
    """Apply `fix` for an FVP whose libraries are under `libraries`; the environment the
    FVP then needs ({} after clearing the flag)."""
    if fix == TUNABLE:
        return {"GLIBC_TUNABLES": EXECSTACK_TUNABLE}
    clear_execstack_under(libraries)
    return {}
