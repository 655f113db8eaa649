"""File digests: compute and compare every pinned digest (sha256 and/or md5)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

CHUNK = 1 << 20


def file_digests(path: Path, kinds: tuple[str, ...]) -> dict[str, str]:
    """Hex digests of `path` for each hashlib algorithm in `kinds`, in one read."""
    hashers = {kind: hashlib.new(kind) for kind in kinds}
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            for hasher in hashers.values():
                hasher.update(chunk)
    return {kind: hasher.hexdigest() for kind, hasher in hashers.items()}


def digest_mismatches(path: Path, expected: Mapping[str, str]) -> list[str]:
    """'kind expected X got Y' for every digest of `path` that differs ([] = verified)."""
    actual = file_digests(path, tuple(expected))
    return [f"{kind} expected {want} got {actual[kind]}"
            for kind, want in expected.items() if actual[kind] != want.lower()]


def describe(expected: Mapping[str, str]) -> str:
    """'sha256+md5' — which digest kinds verified a file."""
    return "+".join(expected)
