"""A file the simulator places in target memory before reset."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class DataFile:
    """`path` loaded at `address` (QEMU -device loader, FVP --data)."""

    path: Path
    address: int
