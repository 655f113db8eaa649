"""Which targets need which setup item (drives `--targets` and doctor's needed_by)."""

from __future__ import annotations

from collections.abc import Iterable

from orchestrator.setup.build_input import BuildInput
from orchestrator.setup.catalogue import Artifact, Source
from orchestrator.targets.model import Target

EVERY_TARGET = "*"


def needs(item: Artifact | Source | BuildInput, target: Target) -> bool:
    """True when `target` cannot be built or run without `item`."""
    if isinstance(item, Artifact) and item.kind == "fvp":
        preferred = target.simulators[0] if target.simulators else None
        return preferred is not None and preferred.binary in item.binaries
    if item.needed_for == "npu":
        return target.has_npu
    if item.needed_for == "cpu":
        return not target.has_npu
    return True


def needed_by(item: Artifact | Source, targets: Iterable[Target]) -> tuple[str, ...]:
    """Names of the targets needing `item`; ('*',) when every target does."""
    targets = list(targets)
    names = tuple(target.name for target in targets if needs(item, target))
    return (EVERY_TARGET,) if targets and len(names) == len(targets) else names


def fvp_users(artifact: Artifact, targets: Iterable[Target]) -> tuple[str, ...]:
    """Targets that can run on this FVP (alternatives to their other simulators)."""
    targets = list(targets)
    names = tuple(target.name for target in targets
                  if any(sim.binary in artifact.binaries for sim in target.simulators))
    return (EVERY_TARGET,) if targets and len(names) == len(targets) else names
