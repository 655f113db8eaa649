"""The one typed loader of orchestrator/data/runner.toml: the runner's code size, pools per
memory mode, kernel sets and the defaults every option and build reads from it (the default
model, kernel sets, build type)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data

ALL = "ALL"       # a kernel set of every portable kernel
MODEL = "MODEL"   # a kernel set that grows with the models run
RUNNER_DATA = DATA_DIR / "runner.toml"
# Every key the file may hold (a misspelt one is refused, not read as its default).
RUNNER_LAYOUT: dict[str, Layout] = {
    "schema": ANY,
    "code": {"code_size": ANY},
    "pools": {EACH: {"method_pool_size": ANY, "temp_pool_region": ANY, "temp_pool_size": ANY,
                     "fast_scratch_size": ANY}},
    "kernel_sets": {EACH: {"ops": ANY}},
    "defaults": {"model": ANY, "kernel_set": ANY, "regress_kernel_set": ANY, "build_type": ANY},
    "event_tracer": {"etdump_buffer_size": ANY, "debug_buffer_size": ANY},
}

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
    default_model: str
    etdump_buffer_size: int      # [event_tracer] (invoke run --profile)
    debug_buffer_size: int


@lru_cache(maxsize=1)
def runner_data() -> RunnerData:
    """Load and check runner.toml once."""
    raw = load_data(RUNNER_DATA, RUNNER_LAYOUT)
    pools = {name: _pools(name, table) for name, table in raw["pools"].items()}
    kernel_sets = {name: _ops(name, table) for name, table in raw["kernel_sets"].items()}
    defaults = raw["defaults"]
    for key in ("kernel_set", "regress_kernel_set"):
        if defaults[key] not in kernel_sets:
            raise OrchestratorError(f"runner.toml: defaults.{key} {defaults[key]} "
                                    "is not defined", f"fix {RUNNER_DATA}")
    tracer = raw["event_tracer"]
    return RunnerData(int(raw["code"]["code_size"]), pools, kernel_sets,
                      str(defaults["kernel_set"]), str(defaults["regress_kernel_set"]),
                      str(defaults["build_type"]), str(defaults["model"]),
                      int(tracer["etdump_buffer_size"]), int(tracer["debug_buffer_size"]))


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


def default_build_type() -> str:
    """runner.toml defaults.build_type: the firmware build type when none is asked for."""
    return runner_data().default_build_type
