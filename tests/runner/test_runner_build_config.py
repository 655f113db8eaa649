"""Runtime and runner build configuration: one runtime for every platform, per-ELF options
from the catalogue, no network fetches, absolute tool paths."""

from __future__ import annotations

from pathlib import Path

from orchestrator.runner.config import memory_mode_of, pools_for
from orchestrator.runner.firmware import RunnerOptions, runner_build_config, runtime_config
from orchestrator.runner.runtime import Toolchain, configure_args, runtime_key
from orchestrator.runner.sources import RuntimeSources
from orchestrator.targets import load_catalogue

SOURCES = RuntimeSources(Path("/src/executorch"), Path("/src/cmsis-nn"),
                         Path("/src/ethos-u-core-driver"), Path("/src/cmsis_6"))
TOOLCHAIN = Toolchain(Path("/opt/gcc/bin/arm-none-eabi-gcc"),
                      Path("/opt/gcc/bin/arm-none-eabi-g++"), "cortex-m55")


def options_for(name: str, kernel_set: str = "all") -> tuple:
    target = load_catalogue().target(name)
    mode = memory_mode_of(target, None)
    return target, RunnerOptions(mode, pools_for(mode), kernel_set=kernel_set)


def test_every_platform_shares_one_runtime_build():
    keys = {runtime_key(runtime_config(*options_for(name)), SOURCES, TOOLCHAIN)
            for name in ("cortex-m55", "cortex-m85", "ethos-u55-128", "ethos-u85-256")}
    assert len(keys) == 1
    other = runtime_key(runtime_config(*options_for("cortex-m55", "common")), SOURCES,
                        TOOLCHAIN)
    assert other not in keys and "common" in other


def test_runtime_configure_uses_the_supplied_trees_and_absolute_compilers(tmp_path):
    target, options = options_for("ethos-u85-128", "common")
    args = configure_args(runtime_config(target, options), SOURCES, TOOLCHAIN, tmp_path)
    assert "-DEXECUTORCH_ROOT=/src/executorch" in args
    assert "-DCMSIS_NN_PATH=/src/cmsis-nn" in args
    assert "-DEOR_GCC=/opt/gcc/bin/arm-none-eabi-gcc" in args
    assert "-DCMAKE_BUILD_TYPE=Release" in args
    ops = next(a for a in args if a.startswith("-DET_KERNEL_OPS="))
    assert "aten::convolution.out" in ops and ";" in ops
    assert all("http" not in arg for arg in args)


def test_runner_elf_options_come_from_the_catalogue():
    target, options = options_for("ethos-u85-128")
    config = dict(runner_build_config(target, options, Path("/rt"), SOURCES).options)
    assert config["EOR_RUNNER_NPU_BASE"] == f"0x{target.platform.npu_base:08x}"
    assert config["EOR_RUNNER_NPU_IRQ"] == str(target.platform.npu_irq)
    assert config["EOR_RUNNER_PMU_EVENTS"].split(";") == list(target.pmu_events)
    assert config["EOR_RUNNER_TEMP_POOL_REGION"] == "BULK"
    assert config["EOR_RUNNER_FAST_SCRATCH_SIZE"] == "0x60000"
    assert config["EOR_RUNNER_ETHOSU_DRIVER"] == "/src/ethos-u-core-driver"


def test_cpu_runner_has_no_npu_options_and_a_distinct_elf_per_pool_size():
    target, options = options_for("cortex-m55")
    config = runner_build_config(target, options, Path("/rt"), SOURCES)
    assert not any(name.startswith("EOR_RUNNER_NPU") for name, _ in config.options)
    bigger = RunnerOptions("cpu", pools_for("cpu", method_pool=64 << 20))
    assert runner_build_config(target, bigger, Path("/rt")).key != config.key


def test_npu_runner_programs_the_timing_adapters_and_routing_from_data():
    target, options = options_for("ethos-u55-128")   # Ethos_U55_High_End_Embedded, Shared_Sram
    values = dict(runner_build_config(target, options, Path("/rt"), SOURCES).options)
    writes = values["EOR_RUNNER_TA_WRITES"].split(";")
    assert len(writes) == 26 and writes[0] == "0x58103000=0x8"    # AXI0 MAXR
    assert "0x58103214=0x140" in writes                            # AXI1 PULSE_ON 320
    assert "EOR_RUNNER_NPU_REGIONS" not in values                  # Shared_Sram: defaults
    u85 = load_catalogue().target("ethos-u85-128")
    dedicated = RunnerOptions("Dedicated_Sram_384KB", pools_for("Dedicated_Sram_384KB"))
    values = dict(runner_build_config(u85, dedicated, Path("/rt"), SOURCES).options)
    assert values["EOR_RUNNER_TA_WRITES"].startswith("0x50006000=0x8;")
    assert "0x50006800=0x0" in values["EOR_RUNNER_TA_WRITES"]      # MAXR 64 masked to 6 bits
    assert values["EOR_RUNNER_NPU_REGIONS"].startswith("NPU_QCONFIG=3;NPU_REGIONCFG_0=3;")
    cpu_values = dict(runner_build_config(*options_for("cortex-m55"), Path("/rt")).options)
    assert not {"EOR_RUNNER_TA_WRITES", "EOR_RUNNER_NPU_REGIONS"} & set(cpu_values)
