"""File digests: compute and compare every pinned digest (sha256 and/or md5)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

CHUNK = 1 << 20
DIGEST_TABLE = "file-digests-1"


def file_digests(path: Path, kinds: tuple[str, ...]) -> dict[str, str]:
    """Hex digests of `path` for each hashlib algorithm in `kinds`, in one read."""
    hashers = {kind: hashlib.new(kind) for kind in kinds}
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            for hasher in hashers.values():
                hasher.update(chunk)
    return {kind: hasher.hexdigest() for kind, hasher in hashers.items()}


def digest_mismatches(path: Path, expected: Mapping[str, str], settled: bool = False
                      ) -> list[str]:
    """'kind expected X got Y' for every digest of `path` that differs ([] = verified).
    `settled`: a file checked before is not read again while its stat is unchanged
    (foundation.derived_cache.file_memo; a download or a file just written is always read)."""
    kinds = tuple(expected)
    if settled:
        from orchestrator.foundation.derived_cache import file_memo

        actual: dict[str, str] = file_memo(DIGEST_TABLE, path, lambda: file_digests(path, kinds),
                                           salt=",".join(kinds))
    else:
        actual = file_digests(path, kinds)
    return [f"{kind} expected {want} got {actual[kind]}"
            for kind, want in expected.items() if actual[kind] != want.lower()]


def describe(expected: Mapping[str, str]) -> str:
    """'sha256+md5' — which digest kinds verified a file."""
    return "+".join(expected)
