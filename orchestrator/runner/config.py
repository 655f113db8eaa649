"""The runner's data (orchestrator/data/runner.toml): areas, pools per memory mode, kernel sets."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from orchestrator._toml import DATA_DIR, load_toml
from orchestrator.errors import OrchestratorError
from orchestrator.runner.kernel_set import ALL, MODEL
from orchestrator.targets.model import Target

RUNNER_DATA = DATA_DIR / "runner.toml"
POOL_REGIONS = ("FAST", "BULK")


@dataclass(frozen=True)
class Pools:
    """Sizes (bytes) and placement of the runner's memory pools for one ELF."""

    method_pool_size: int
    temp_pool_size: int
    temp_pool_region: str
    fast_scratch_size: int

    def describe(self) -> str:
        """A short key-friendly text: m<hex>-t<hex><region>-f<hex>."""
        return (f"m{self.method_pool_size:x}-t{self.temp_pool_size:x}"
                f"{self.temp_pool_region[0].lower()}-f{self.fast_scratch_size:x}")


@dataclass(frozen=True)
class RunnerData:
    """Everything runner.toml says."""

    code_size: int
    pools: dict[str, Pools]
    kernel_sets: dict[str, tuple[str, ...] | str]
    default_kernel_set: str
    regress_kernel_set: str
    default_build_type: str
    etdump_buffer_size: int
    debug_buffer_size: int


@lru_cache(maxsize=1)
def runner_data() -> RunnerData:
    """Load and check runner.toml once."""
    raw = load_toml(RUNNER_DATA)
    pools = {name: _pools(name, table) for name, table in raw["pools"].items()}
    kernel_sets = {name: _ops(name, table) for name, table in raw["kernel_sets"].items()}
    defaults = raw["defaults"]
    for key in ("kernel_set", "regress_kernel_set"):
        if defaults[key] not in kernel_sets:
            raise OrchestratorError(f"runner.toml: defaults.{key} {defaults[key]} "
                                    "is not defined", f"fix {RUNNER_DATA}")
    tracer = raw["event_tracer"]
    return RunnerData(int(raw["code"]["code_size"]), pools, kernel_sets,
                      defaults["kernel_set"], defaults["regress_kernel_set"],
                      defaults["build_type"], int(tracer["etdump_buffer_size"]),
                      int(tracer["debug_buffer_size"]))


def _pools(name: str, table: dict[str, Any]) -> Pools:
    pools = Pools(int(table["method_pool_size"]), int(table["temp_pool_size"]),
                  str(table["temp_pool_region"]), int(table["fast_scratch_size"]))
    if pools.temp_pool_region not in POOL_REGIONS:
        raise OrchestratorError(f"runner.toml: pools.{name}.temp_pool_region must be one of "
                                f"{', '.join(POOL_REGIONS)}", f"fix {RUNNER_DATA}")
    return pools


def _ops(name: str, table: dict[str, Any]) -> tuple[str, ...] | str:
    ops = table["ops"]
    if ops in (ALL, MODEL):
        return str(ops)
    if not isinstance(ops, list) or not ops:
        raise OrchestratorError(f"runner.toml: kernel_sets.{name}.ops must be \"ALL\", "
                                "\"MODEL\" or a non-empty list", f"fix {RUNNER_DATA}")
    return tuple(sorted(ops))


def memory_mode_of(target: Target, memory_mode: str | None) -> str:
    """The memory mode a run uses: 'cpu' without an NPU, else the asked or default mode."""
    if not target.has_npu:
        return "cpu"
    mode = memory_mode or target.memory_mode or ""
    assert target.npu is not None
    if mode not in target.npu.memory_modes:
        raise OrchestratorError(
            f"memory mode {mode} is not supported by {target.name} "
            f"(supported: {', '.join(target.npu.memory_modes)})",
            f"invoke run --target {target.name} --memory-mode {target.npu.memory_modes[0]}")
    return mode


def pools_for(mode: str, method_pool: int | None = None, temp_pool: int | None = None,
              fast_scratch: int | None = None) -> Pools:
    """The catalogue pools of `mode` with any user overrides applied."""
    base = runner_data().pools[mode]
    return replace(base, method_pool_size=method_pool or base.method_pool_size,
                   temp_pool_size=temp_pool or base.temp_pool_size,
                   fast_scratch_size=base.fast_scratch_size if fast_scratch is None
                   else fast_scratch)


def kernel_ops(kernel_set: str) -> tuple[str, ...] | str:
    """The op list of a kernel set (or "ALL" / "MODEL"); unknown names list the known ones."""
    sets = runner_data().kernel_sets
    if kernel_set not in sets:
        raise OrchestratorError(f"unknown kernel set {kernel_set} (known: {', '.join(sets)})",
                                f"invoke run --kernel-set {runner_data().default_kernel_set}")
    return sets[kernel_set]
