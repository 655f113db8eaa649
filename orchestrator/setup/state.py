"""Is an installed item still what the pins ask for? Cheap checks (no hashing, no network):
used by setup's no-op path and by `invoke doctor`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.foundation.doctor_model import State
from orchestrator.foundation.hosttools import version_tuple
from orchestrator.setup.catalogue import Artifact, Source, pin_label
from orchestrator.setup.install import read_marker


@dataclass(frozen=True)
class ItemState:
    """State of one installed item, where it is, and a short explanation."""

    state: State
    found: str = ""
    version: str = ""
    detail: str = ""


def _missing_files(paths: list[str]) -> list[str]:
    """The recorded files that no longer exist."""
    return [path for path in paths if not Path(path).is_file()]


def _tree_matches_lock(entry: dict[str, Any]) -> bool:
    """A tree setup installed into scratch/ must still carry the entry it was installed with."""
    marker = read_marker(Path(entry["install_dir"]))
    return marker is not None and marker.get("version") == entry.get("version")


def artifact_state(artifact: Artifact, entry: dict[str, Any] | None) -> ItemState:
    """ok / missing / wrong version / unusable for a toolchain or FVP entry."""
    if not entry:
        return ItemState(State.MISSING)
    binaries = entry.get("binaries", {})
    found = entry.get("bin_dir") or entry.get("install_dir", "")
    version = str(entry.get("version", ""))
    if entry.get("usable") is False:
        first = (entry.get("problems") or [{}])[0]
        return ItemState(State.UNUSABLE, found, version,
                         f"{first.get('binary', '')} {first.get('problem', '')}; "
                         f"{first.get('remedy', '')}".strip())
    missing = _missing_files(list(binaries.values())) or [
        name for name in artifact.binaries if name not in binaries]
    if missing:
        return ItemState(State.MISSING, found, version, f"missing {', '.join(missing[:3])}")
    if entry.get("provider") in ("download", "arm") and not _tree_matches_lock(entry):
        return ItemState(State.MISSING, found, version, "install tree does not match the lock")
    if entry.get("provider") in ("download", "arm") and version != artifact.version:
        return ItemState(State.WRONG_VERSION, found, version, f"pinned {artifact.version}")
    minimum = artifact.system_min_version
    if entry.get("provider") == "system" and version_tuple(version) < version_tuple(minimum):
        return ItemState(State.WRONG_VERSION, found, version, f"older than {minimum}")
    return ItemState(State.OK, found, version, _provider_note(entry))


def _provider_note(entry: dict[str, Any]) -> str:
    """A short note on where an artifact came from and what it needs at run time."""
    note = {"system": "system toolchain", "arm": "pinned Arm download",
            "download": "pinned download", "user": "user-supplied"}.get(
                entry.get("provider", ""), "")
    if entry.get("env"):
        note += f"; runs with {' '.join(sorted(entry['env']))}"
    return note


def source_state(source: Source, entry: dict[str, Any] | None) -> ItemState:
    """ok / missing / wrong version for a source tree entry."""
    if not entry:
        return ItemState(State.MISSING)
    path = Path(entry["path"])
    commit = entry.get("commit") or ""
    version = source.tag if entry.get("pin_match") and source.tag else commit[:12]
    missing = [name for name in source.required_files if not (path / name).exists()]
    if missing:
        return ItemState(State.MISSING, str(path), version, f"missing {', '.join(missing[:3])}")
    if entry.get("origin") in ("fetch", "export") and not source.parent:
        marker = read_marker(path)
        if marker is None or marker.get("commit") != entry.get("commit"):
            return ItemState(State.MISSING, str(path), version, "tree does not match the lock")
    if entry.get("pinned") != {"tag": source.tag, "commit": source.commit}:
        return ItemState(State.WRONG_VERSION, str(path), version,
                         f"set up for {entry.get('pinned')}, pins now ask for {pin_label(source)}")
    detail = "" if entry.get("pin_match") else "not the pinned revision (accepted by the user)"
    return ItemState(State.OK, str(path), version, detail)
