"""The runner ELF for a target: the runtime libraries (cached per cpu / NPU config / build
type / kernel set), then the firmware project's `runner` app linked against them."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.firmware.build import BuildResult, build_firmware
from orchestrator.firmware.build.config import BuildConfig, firmware_data
from orchestrator.firmware.build.npu_model import model_definitions, placed_model
from orchestrator.firmware.build.tools import resolve_tools
from orchestrator.foundation.paths import Scratch
from orchestrator.runner.config import Pools, kernel_ops, runner_data
from orchestrator.runner.runtime import (
    RuntimeBuild,
    RuntimeConfig,
    Toolchain,
    build_runtime,
)
from orchestrator.runner.sources import RuntimeSources, resolve_sources, source_commit
from orchestrator.targets import Platform, Target
from orchestrator.targets.runner_data import default_build_type

if TYPE_CHECKING:   # the AXI settings load for NPU devices (FVP) only
    from orchestrator.targets.npu_axi import NpuAxi


@dataclass(frozen=True)
class RunnerOptions:
    """What selects one runner ELF besides the target."""

    memory_mode: str
    pools: Pools
    kernel_set: str = field(default_factory=lambda: runner_data().default_kernel_set)
    build_type: str = field(default_factory=default_build_type)
    jobs: int = 2
    model_ops: tuple[str, ...] = ()   # the operators of the model about to run
    profile: bool = False   # the event tracer: ETDump back through the protocol
    intermediates: bool = False   # with it, every operator's output (a debug buffer)


@dataclass(frozen=True)
class RunnerBuild:
    """The runtime and the ELF built on it, with the seconds each step took."""

    runtime: RuntimeBuild
    firmware: BuildResult
    seconds: dict[str, float]
    runtime_commit: str | None = None   # the ExecuTorch source commit the runtime is built from


def runtime_config(target: Target, options: RunnerOptions) -> RuntimeConfig:
    """The runtime build a target links (shared by every platform with the same -mcpu)."""
    cmake_type = firmware_data()["build_types"][options.build_type]
    return RuntimeConfig(target.platform.gcc_cpu, cmake_type, options.kernel_set,
                         kernel_ops(options.kernel_set), options.model_ops,
                         event_tracer=options.profile)


def memory_regions(platform: Platform, code_size: int) -> str:
    """The platform's regions with DDR split into DDR (areas, pools, heap) and DDR_CODE (top)."""
    entries = []
    for region in platform.regions:
        if region.name == "DDR":
            data = region.length - code_size
            entries += [f"DDR:0x{region.origin:08x}:0x{data:x}",
                        f"DDR_CODE:0x{region.origin + data:08x}:0x{code_size:x}"]
        else:
            entries.append(f"{region.name}:0x{region.origin:08x}:0x{region.length:x}")
    return ";".join(entries)


def drives_npu_device(target: Target) -> bool:
    """True when the runner drives a real (FVP) Ethos-U through the core driver; False for CPU
    targets and for NPU targets placed on the NPU model (no device, no AXI)."""
    return target.has_npu and placed_model(target) is None


def runner_npu_axi(target: Target, memory_mode: str) -> NpuAxi:
    """Timing adapters and region routing of an NPU target's runner (its system config)."""
    from orchestrator.targets.npu_axi import npu_axi  # NPU devices (FVP) only

    assert target.system_config is not None
    return npu_axi(target.platform.name, target.system_config, memory_mode)


def npu_axi_values(axi: NpuAxi) -> dict[str, str]:
    """CMake values: the timing-adapter register writes (address=value) the runner makes
    before its first inference, and the driver's NPU_QCONFIG / NPU_REGIONCFG definitions."""
    from orchestrator.targets.npu_axi import npu_axi_data

    registers = npu_axi_data().registers
    writes = [f"0x{address:08x}=0x{value:x}" for adapter in axi.timing_adapters
              for address, value in adapter.writes(registers)]
    values = {"EOR_RUNNER_TA_WRITES": ";".join(writes),
              "EOR_RUNNER_NPU_REGIONS": ";".join(axi.driver_definitions())}
    return {key: value for key, value in values.items() if value}


def runner_build_config(target: Target, options: RunnerOptions, runtime_dir: Path,
                        sources: RuntimeSources | None = None) -> BuildConfig:
    """The firmware build of the runner app: pools, NPU base/IRQ, PMU events, driver sources."""
    pools = options.pools
    values = {
        "EOR_RUNTIME_DIR": str(runtime_dir),
        "EOR_RUNNER_METHOD_POOL_SIZE": f"0x{pools.method_pool_size:x}",
        "EOR_RUNNER_TEMP_POOL_SIZE": f"0x{pools.temp_pool_size:x}",
        "EOR_RUNNER_TEMP_POOL_REGION": pools.temp_pool_region,
        "EOR_RUNNER_FAST_SCRATCH_SIZE": f"0x{pools.fast_scratch_size:x}",
        "EOR_MEMORY_REGIONS": memory_regions(target.platform, runner_data().code_size),
    }
    if options.profile:
        values["EOR_RUNNER_ETDUMP_BUFFER_SIZE"] = f"0x{runner_data().etdump_buffer_size:x}"
    if options.intermediates:
        values["EOR_RUNNER_DEBUG_BUFFER_SIZE"] = f"0x{runner_data().debug_buffer_size:x}"
    if placed_model(target) is not None:
        values.update({"EOR_RUNNER_NPU_EXECUTOR": "model", **model_definitions(target)})
    elif drives_npu_device(target):
        platform = target.platform
        values.update({"EOR_RUNNER_NPU_BASE": f"0x{platform.npu_base:08x}",
                       "EOR_RUNNER_NPU_IRQ": str(platform.npu_irq),
                       "EOR_RUNNER_PMU_EVENTS": ";".join(target.pmu_events)})
        values.update(npu_axi_values(runner_npu_axi(target, options.memory_mode)))
        if sources is not None:
            values.update({"EOR_RUNNER_ETHOSU_DRIVER": str(sources.ethosu_driver),
                           "EOR_RUNNER_CMSIS": str(sources.cmsis)})
    return BuildConfig(app="runner", platform=target.platform, build_type=options.build_type,
                       npu_config=target.name if target.has_npu else None,
                       options=tuple(sorted(values.items())),
                       trees=(*source_trees(sources), ("runtime", str(runtime_dir))))


def source_trees(sources: RuntimeSources | None) -> tuple[tuple[str, str], ...]:
    """(name, dir) of the upstream trees the runner compiles from (for prefix maps)."""
    if sources is None:
        return ()
    named = {"executorch": sources.executorch, "cmsis-nn": sources.cmsis_nn,
             "ethos-u-core-driver": sources.ethosu_driver, "cmsis": sources.cmsis}
    return tuple((name, str(path)) for name, path in named.items() if path is not None)


def _runtime(work: Scratch, target: Target, options: RunnerOptions,
             sources: Mapping[str, Path] | None) -> tuple[RuntimeBuild, RuntimeSources]:
    """Build (incrementally) the runtime `target` links with `options`."""
    tools = resolve_tools(work)
    toolchain = Toolchain(tools.gcc, tools.gxx, target.platform.gcc_cpu,
                          target.platform.float_abi)
    trees = resolve_sources(work, sources, npu=target.has_npu and placed_model(target) is None)
    runtime = build_runtime(work, runtime_config(target, options), trees, toolchain,
                            jobs=options.jobs)
    return runtime, trees


def prebuild_runtime(work: Scratch, target: Target, options: RunnerOptions,
                     sources: Mapping[str, Path] | None = None) -> RuntimeBuild:
    """The runtime alone (the runner build later finds it built): orchestrator/runner/overlap."""
    return _runtime(work, target, options, sources)[0]


def build_runner(work: Scratch, target: Target, options: RunnerOptions,
                 sources: Mapping[str, Path] | None = None) -> RunnerBuild:
    """Build (incrementally) the runtime and the runner ELF for `target`."""
    started = time.perf_counter()
    runtime, trees = _runtime(work, target, options, sources)
    runtime_done = time.perf_counter()
    config = runner_build_config(target, options, runtime.build_dir, trees)
    firmware = build_firmware(work, config, jobs=options.jobs,
                              manifest_extra={"kernels": runtime.kernels_json()})
    return RunnerBuild(runtime, firmware,
                       {"runtime": round(runtime_done - started, 3),
                        "runner": round(time.perf_counter() - runtime_done, 3)},
                       source_commit(work, trees.executorch))
