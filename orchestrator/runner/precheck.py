"""Before simulating: does the model fit the runner's areas and pools? Refuse with
"needs X, has Y, pass --<option>" instead of letting the target fail."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.runner.areas import MODEL_HEADER_SIZE
from orchestrator.runner.config import Pools

# Method objects (EValues, tensor metadata, kernel tables) live in the method pool next to
# the planned buffers; upstream runs show tens of KiB. Keep this much headroom.
METHOD_OVERHEAD = 256 * 1024


@dataclass(frozen=True)
class Need:
    """One requirement against one capacity."""

    what: str
    needs: int
    has: int
    option: str

    @property
    def fits(self) -> bool:
        return self.needs <= self.has


def program_facts_of(manifest: Mapping[str, Any]) -> Mapping[str, Any]:
    """The compile stage's program facts (planned memory, Vela scratch) inside a manifest."""
    for key in ("program", "program_facts", "memory"):
        found = manifest.get(key)
        if isinstance(found, Mapping):
            return found
    return manifest


def needs_for(facts: Mapping[str, Any], pte_bytes: int, input_bytes: int, pools: Pools,
              model_area: int, input_area: int) -> list[Need]:
    """Every requirement of this model against this runner."""
    methods = facts.get("methods") or {}
    planned = max((int(m.get("planned_bytes", 0)) for m in methods.values()), default=0)
    scratch = int(facts.get("max_vela_scratch_bytes") or 0)
    return [
        Need("model (.pte + header)", pte_bytes + MODEL_HEADER_SIZE, model_area,
             "--model-area"),
        Need("inputs (+ header)", input_bytes, input_area, "--input-area"),
        Need("method pool (planned buffers + method objects)", planned + METHOD_OVERHEAD,
             pools.method_pool_size, "--method-pool"),
        Need("temp pool (Ethos-U scratch)", scratch, pools.temp_pool_size, "--temp-pool"),
    ]


def check_fits(needs: list[Need], rerun: str) -> None:
    """Raise for the first requirement that does not fit, naming the option to pass."""
    for need in needs:
        if not need.fits:
            suggestion = _round_up(need.needs)
            raise OrchestratorError(
                f"{need.what} needs {_size(need.needs)}, has {_size(need.has)}",
                f"{rerun} {need.option} {suggestion:#x}")


def _round_up(value: int, step: int = 64 * 1024) -> int:
    return (value + step - 1) // step * step


def _size(value: int) -> str:
    if value >= 1024 * 1024:
        return f"{value / (1024 * 1024):.2f} MiB ({value} B)"
    if value >= 1024:
        return f"{value / 1024:.1f} KiB ({value} B)"
    return f"{value} B"
