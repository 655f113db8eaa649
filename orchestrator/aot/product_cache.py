"""What the product cache (scratch/models/) holds, and its bounded clean-up: lowerings
(scratch/models/lowered/<key>/) and their configurations' products (scratch/models/<key>/).

A running job holds a lease on every product and lowering it uses: a shared flock on the
directory's `.lease` file, taken when it is found or compiled and held until the process exits
(the OS drops it then, whatever way the process ends). The clean-up removes an entry only
after taking that lock exclusively without waiting, and renames the directory away while it
holds it, so a job either leases the entry before the clean-up looks at it (and the clean-up
skips it) or finds it gone (a cache miss: it compiles again). Nothing here imports torch."""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from orchestrator.aot.lower.store import LOWERING_MANIFEST, load_lowering, lowered_root
from orchestrator.aot.products import MANIFEST, load_product

LEASE = ".lease"
TRASH_PREFIX = ".trash-"
_held: dict[Path, int] = {}   # this process's leases: product directory -> open descriptor


def hold(directory: Path) -> bool:
    """Lease `directory` for the rest of this process (idempotent); False when the product is
    gone or was removed while we waited. Marks it used now (the listing's "used" age)."""
    directory = directory.resolve()
    if directory in _held:
        return True
    try:
        descriptor = os.open(directory / LEASE, os.O_RDWR | os.O_CREAT, 0o644)
    except (FileNotFoundError, NotADirectoryError):
        return False
    fcntl.flock(descriptor, fcntl.LOCK_SH)
    if not _same_file(directory / LEASE, descriptor):
        os.close(descriptor)     # the clean-up renamed it away while we waited
        return False
    os.utime(descriptor)
    _held[directory] = descriptor
    return True


def release_all() -> None:
    """Drop this process's leases (a long-lived worker between jobs; tests)."""
    while _held:
        _directory, descriptor = _held.popitem()
        os.close(descriptor)


def _same_file(path: Path, descriptor: int) -> bool:
    try:
        return path.stat().st_ino == os.fstat(descriptor).st_ino
    except FileNotFoundError:
        return False


@contextmanager
def _exclusive(directory: Path, create: bool = True) -> Iterator[bool]:
    """Yield True with the product's lease held exclusively, False when a job holds it (or the
    product is gone). Without `create`, a product never leased is free and left untouched."""
    try:
        descriptor = os.open(directory / LEASE, os.O_RDWR | (os.O_CREAT if create else 0),
                             0o644)
    except (FileNotFoundError, NotADirectoryError):
        yield not create and directory.is_dir()
        return
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield _same_file(directory / LEASE, descriptor)
    finally:
        os.close(descriptor)


LOWERING = "lowering"
CONFIGURATION = "configuration"


@dataclass(frozen=True)
class CachedProduct:
    """One entry of the cache: a lowering (scratch/models/lowered/<key>/) or a configuration's
    product (scratch/models/<key>/); what it is, how big, when made and last used, leased now."""

    key: str
    directory: Path
    lowering: str        # the lowering key (a lowering's own key)
    target: str          # a product's target; the configuration a lowering was made with
    size: int            # bytes on disk (a file hard-linked twice in it counted once)
    created: float       # epoch seconds (manifest written)
    used: float          # epoch seconds (last lease, else created; a lowering: or its products')
    in_use: bool
    kind: str = CONFIGURATION
    model: str = "?"
    files: dict[tuple[int, int], int] = field(default_factory=dict, repr=False, compare=False)

    def as_json(self, now: float) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "directory": str(self.directory),
                "lowering": self.lowering, "model": self.model, "target": self.target,
                "bytes": self.size, "age_s": round(now - self.created, 1),
                "used_s": round(now - self.used, 1), "in_use": self.in_use}


def lowering_of(manifest: dict[str, Any]) -> str:
    """The lowering key a product records; for a product made before compiles had two steps,
    'model quantization family' (what its lowering would have been)."""
    recorded = (manifest.get("lowering") or {}).get("key")
    if recorded:
        return str(recorded)
    from orchestrator.targets import load_catalogue

    options = manifest.get("options") or {}
    name = (manifest.get("model") or {}).get("name", "?")
    try:
        target = load_catalogue().target(str(manifest.get("target")))
        family = target.npu.name if target.npu is not None else "cpu"
    except Exception:   # a product of a target the catalogue no longer has
        family = "?"
    return f"{name} {options.get('quantize') or 'float'} {family}"


def directory_files(directory: Path) -> dict[tuple[int, int], int]:
    """(device, inode) -> bytes of every file below `directory`: a file hard-linked into
    several products (what configurations share with their lowering) is one entry."""
    found = {}
    for root, _dirs, files in os.walk(directory):
        for name in files:
            try:
                info = os.lstat(os.path.join(root, name))
            except FileNotFoundError:   # removed meanwhile
                continue
            found[(info.st_dev, info.st_ino)] = info.st_size
    return found


def total_size(products: list[CachedProduct]) -> int:
    """Bytes the entries take together (shared files once)."""
    union: dict[tuple[int, int], int] = {}
    for product in products:
        union.update(product.files)
    return sum(union.values())


def _in_use(directory: Path) -> bool:
    if directory.resolve() in _held:
        return True
    with _exclusive(directory, create=False) as free:
        return not free


def _entry(directory: Path, manifest_file: Path, manifest: dict[str, Any], kind: str,
           lowering: str, target: str) -> CachedProduct:
    created = manifest_file.stat().st_mtime
    lease = directory / LEASE
    used = max(created, lease.stat().st_mtime) if lease.is_file() else created
    files = directory_files(directory)
    return CachedProduct(key=directory.name, directory=directory, lowering=lowering,
                         target=target, size=sum(files.values()), created=created, used=used,
                         in_use=_in_use(directory), kind=kind,
                         model=str((manifest.get("model") or {}).get("name", "?")),
                         files=files)


def _children(folder: Path) -> list[Path]:
    return [d for d in sorted(folder.iterdir()) if d.is_dir() and not d.name.startswith(".")
            ] if folder.is_dir() else []


def list_products(models: Path) -> list[CachedProduct]:
    """Every complete product (configuration) in `models`, most recently used first."""
    return [entry for entry in list_cache(models) if entry.kind == CONFIGURATION]


def list_cache(models: Path) -> list[CachedProduct]:
    """Every complete lowering and product in `models`, most recently used first (a lowering
    counts as used when one of its configurations is)."""
    products = []
    for directory in _children(models):
        product = load_product(directory)
        if product is not None:
            products.append(_entry(directory, directory / MANIFEST, product.manifest,
                                   CONFIGURATION, lowering_of(product.manifest),
                                   str(product.manifest["target"])))
    lowerings = []
    for directory in _children(lowered_root(models)):
        lowering = load_lowering(directory)
        if lowering is not None:
            entry = _entry(directory, directory / LOWERING_MANIFEST, lowering.manifest,
                           LOWERING, directory.name, str(lowering.manifest.get("lowered_for")))
            last = max([entry.used, *(p.used for p in products if p.lowering == entry.key)])
            lowerings.append(replace(entry, used=last))
    return sorted([*lowerings, *products],
                  key=lambda item: (-item.used, item.kind != LOWERING, item.key))


@dataclass(frozen=True)
class CleanReport:
    """What a clean-up removed, kept, and skipped because a running job holds it."""

    removed: list[CachedProduct]
    kept: list[CachedProduct]
    skipped_in_use: list[CachedProduct]

    def as_json(self, now: float) -> dict[str, Any]:
        return {"removed": [p.as_json(now) for p in self.removed],
                "kept": [p.as_json(now) for p in self.kept],
                "skipped_in_use": [p.as_json(now) for p in self.skipped_in_use],
                "freed_bytes": total_size(self.removed)}


def over_bounds(entries: list[CachedProduct], keep: int | None,
                max_bytes: int | None) -> list[CachedProduct]:
    """The entries (most recently used first) beyond the newest `keep` of their kind, or
    beyond what fits in `max_bytes` counted from the most recently used (shared files once);
    a lowering stays while a configuration of it stays. Entries in use count but stay."""
    chosen = []
    union: dict[tuple[int, int], int] = {}
    ranks = {LOWERING: 0, CONFIGURATION: 0}
    for entry in entries:
        union.update(entry.files)
        over_size = max_bytes is not None and sum(union.values()) > max_bytes
        if (keep is not None and ranks[entry.kind] >= keep) or over_size:
            chosen.append(entry)
        ranks[entry.kind] += 1
    gone = {entry.key for entry in chosen}
    needed = {entry.lowering for entry in entries
              if entry.kind == CONFIGURATION and entry.key not in gone}
    return [entry for entry in chosen if entry.kind != LOWERING or entry.key not in needed]


def clean(models: Path, keep: int | None = None, max_bytes: int | None = None,
          dry_run: bool = False) -> CleanReport:
    """Remove what is over the bounds, never an entry a running job holds."""
    entries = list_cache(models)
    removed, skipped = [], []
    for entry in over_bounds(entries, keep, max_bytes):
        if entry.in_use or not (dry_run or _remove(entry.directory)):
            skipped.append(entry)
        else:
            removed.append(entry)
    gone = {p.key for p in removed} | {p.key for p in skipped}
    return CleanReport(removed, [p for p in entries if p.key not in gone], skipped)


def _remove(directory: Path) -> bool:
    """Rename the product away with its lease held exclusively, then delete it; False when a
    job holds it."""
    with _exclusive(directory) as free:
        if not free:
            return False
        trash = directory.with_name(f"{TRASH_PREFIX}{directory.name}-{os.getpid()}")
        directory.rename(trash)
    shutil.rmtree(trash, ignore_errors=True)
    return True
