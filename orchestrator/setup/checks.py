"""`invoke doctor` rows for what setup provides: toolchain, Corstone FVPs, upstream sources."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from orchestrator.foundation.doctor_model import Requirement, State
from orchestrator.foundation.paths import Scratch
from orchestrator.setup.catalogue import (
    EULA_ENV,
    Artifact,
    SetupCatalogue,
    Source,
    load_setup_catalogue,
    pin_label,
)
from orchestrator.setup.lock import read_lock
from orchestrator.setup.needs import fvp_users, needed_by
from orchestrator.setup.state import ItemState, artifact_state, source_state
from orchestrator.targets import Target, load_catalogue


def _artifact_fix(artifact: Artifact, item: ItemState, entry: dict[str, Any] | None) -> str:
    """The exact command that repairs this artifact's state."""
    if item.state is State.OK:
        return ""
    if item.state is State.UNUSABLE and entry and entry.get("problems"):
        return str(entry["problems"][0].get("remedy", ""))
    force = "" if item.state is State.MISSING else " --force"
    eula = " --accept-eula" if artifact.kind == "fvp" else ""
    fix = f"invoke setup --only {artifact.name}{eula}{force}"
    return fix + (f" (or export {EULA_ENV}=True)" if eula else "")


def _source_fix(source: Source, item: ItemState) -> str:
    """The exact command that repairs this source's state (online, or from a local copy)."""
    if item.state is State.OK:
        return ""
    top = source.parent or source.name
    force = "" if item.state is State.MISSING else " --force"
    return (f"invoke setup --only {top}{force} (offline: add --source {source.name}=<local git "
            f"repo>@{source.tag or source.commit})")


def artifact_check(artifact: Artifact, entry: dict[str, Any] | None,
                   users: tuple[str, ...]) -> Requirement:
    """One doctor row for a toolchain or FVP."""
    item = artifact_state(artifact, entry)
    name = artifact.name if artifact.kind != "toolchain" else "arm-none-eabi toolchain"
    return Requirement(name, item.state, found=item.found, version=item.version,
                       fix=_artifact_fix(artifact, item, entry), needed_by=users,
                       detail=item.detail,
                       category="simulator" if artifact.kind == "fvp" else "tool")


def source_check(source: Source, entry: dict[str, Any] | None,
                 users: tuple[str, ...]) -> Requirement:
    """One doctor row for an upstream source tree."""
    item = source_state(source, entry)
    label = f"{source.name} source" + (f" ({source.path})" if source.parent else "")
    return Requirement(label, item.state, found=item.found,
                       version=item.version or pin_label(source), fix=_source_fix(source, item),
                       needed_by=users, detail=item.detail, category="source")


def checks_for(scratch: Scratch, catalogue: SetupCatalogue,
               targets: Iterable[Target]) -> list[Requirement]:
    """Rows for every artifact and source in `catalogue`, judged against `targets`."""
    targets = list(targets)
    lock = read_lock(scratch)
    rows = []
    for artifact in catalogue.artifacts.values():
        users = (fvp_users(artifact, targets) if artifact.kind == "fvp"
                 else needed_by(artifact, targets))
        rows.append(artifact_check(artifact, lock.get(artifact.name), users))
    for source in catalogue.sources.values():
        rows.append(source_check(source, lock.get(source.name), needed_by(source, targets)))
    return rows


def setup_checks(scratch: Scratch, target_names: Iterable[str]) -> list[Requirement]:
    """Toolchain, FVP and source rows for `invoke doctor` (needed_by = target names or '*')."""
    catalogue = load_catalogue()
    targets = [catalogue.target(name) for name in target_names]
    return checks_for(scratch, load_setup_catalogue(), targets)
