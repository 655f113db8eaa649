"""The runner's memory plan and kernels for one run, from runner.toml (loaded, typed, by
orchestrator.targets.runner_data)."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets.model import Platform, Target
from orchestrator.targets.runner_data import RUNNER_DATA, Pools, RunnerData, runner_data

__all__ = ["RUNNER_DATA", "Pools", "RunnerData", "memory_mode_of", "pools_for", "runner_data"]

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
              fast_scratch: int | None = None, board: Platform | None = None) -> Pools:
    """The catalogue pools of `mode` (a smaller `board`'s own sizes, targets.toml pools) with
    any user overrides applied."""
    sizes = dict(board.pools if board else ())
    base = runner_data().pools[mode]
    base = replace(base, method_pool_size=sizes.get("method_pool_size", base.method_pool_size),
                   temp_pool_size=sizes.get("temp_pool_size", base.temp_pool_size))
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
