"""The NPU's AXI side as upstream configures it (orchestrator/data/npu_axi.toml): Corstone
timing-adapter settings per (system config, memory mode) and the Ethos-U region routing
(NPU_QCONFIG / NPU_REGIONCFG) per memory mode."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data

NPU_AXI_DATA = DATA_DIR / "npu_axi.toml"
AXI_NAMES = ("axi0", "axi1")


@dataclass(frozen=True)
class Register:
    """One timing-adapter register: offset from the adapter's base and field width."""

    name: str
    offset: int
    bits: int

    def field(self, value: int) -> int:
        """What the register holds after a write of `value` (the driver masks the field)."""
        return value & ((1 << self.bits) - 1)


@dataclass(frozen=True)
class TimingAdapter:
    """One adapter's settings, in register order."""

    axi: str          # axi0 | axi1
    base: int
    memory: str       # what upstream models behind it (SRAM, DRAM, flash)
    values: tuple[tuple[str, int], ...]

    def writes(self, registers: tuple[Register, ...]) -> list[tuple[int, int]]:
        """(address, value) for every register, in register order, masked to its field as
        the core platform's driver writes it."""
        values = dict(self.values)
        return [(self.base + reg.offset, reg.field(values[reg.name])) for reg in registers]

    def masked(self, registers: tuple[Register, ...]) -> list[str]:
        """Settings wider than their field: 'axi1.maxr 64 -> 0' (upstream's 64 in a 6-bit
        field reads back 0, which the adapter treats as unlimited)."""
        values = dict(self.values)
        return [f"{self.axi}.{reg.name} {values[reg.name]} -> {reg.field(values[reg.name])}"
                for reg in registers if reg.field(values[reg.name]) != values[reg.name]]


@dataclass(frozen=True)
class NpuAxi:
    """Everything the runner programs for one (platform, system config, memory mode)."""

    system_config: str
    memory_mode: str
    timing_adapters: tuple[TimingAdapter, ...]   # () when upstream programs none
    unprogrammed: str | None                      # why there are none
    qconfig: int | None                           # None: the driver's defaults
    regioncfg: tuple[int, ...] | None

    def driver_definitions(self) -> list[str]:
        """NPU_QCONFIG=.. NPU_REGIONCFG_i=.. for the Ethos-U core driver ([] = defaults)."""
        if self.qconfig is None or self.regioncfg is None:
            return []
        return [f"NPU_QCONFIG={self.qconfig}"] + [
            f"NPU_REGIONCFG_{index}={value}" for index, value in enumerate(self.regioncfg)]

    def record(self) -> dict[str, Any]:
        """What a result records: which settings the runner was built with (upstream's
        numbers; `masked` lists those the register field truncates)."""
        registers = npu_axi_data().registers
        return {"system_config": self.system_config, "memory_mode": self.memory_mode,
                "source": "ExecuTorch v1.4.1 backends/arm/scripts/corstone_utils.cmake",
                "timing_adapters": {ta.axi: {"base": f"0x{ta.base:08x}", "memory": ta.memory,
                                             **dict(ta.values)}
                                    for ta in self.timing_adapters},
                "timing_adapters_unprogrammed": self.unprogrammed,
                "masked": [note for ta in self.timing_adapters for note in ta.masked(registers)],
                "npu_qconfig": self.qconfig,
                "npu_regioncfg": list(self.regioncfg) if self.regioncfg else None}


@dataclass(frozen=True)
class NpuAxiData:
    """npu_axi.toml, checked."""

    bases: dict[str, tuple[int, ...]]
    registers: tuple[Register, ...]
    settings: dict[str, dict[str, Any]]
    regions: dict[str, dict[str, Any]]

# Every key the file may hold (a misspelt one is refused, not read as its default); a register's
# name inside axi0/axi1 is checked against the registers table when loaded.
NPU_AXI_LAYOUT: dict[str, Layout] = {
    "schema": ANY,
    "timing_adapters": {
        "bases": ANY,   # platform -> adapter base addresses
        "registers": {EACH: {"offset": ANY, "bits": ANY}},
        "settings": {EACH: {EACH: {"axi0_memory": ANY, "axi0": ANY, "axi1_memory": ANY,
                                   "axi1": ANY, "unprogrammed": ANY}}},
    },
    "npu_regions": {EACH: {"qconfig": ANY, "regioncfg": ANY, "driver_defaults": ANY}},
}


def _data_error(rule: str) -> OrchestratorError:
    return OrchestratorError(f"npu_axi.toml: {rule}", f"fix {NPU_AXI_DATA}")


@lru_cache(maxsize=1)
def npu_axi_data() -> NpuAxiData:
    """Load npu_axi.toml once; every setting must fit its register field."""
    raw = load_data(NPU_AXI_DATA, NPU_AXI_LAYOUT)
    tables = raw["timing_adapters"]
    registers = tuple(sorted((Register(name, int(r["offset"]), int(r["bits"]))
                              for name, r in tables["registers"].items()),
                             key=lambda reg: reg.offset))
    data = NpuAxiData({k: tuple(v) for k, v in tables["bases"].items()}, registers,
                      tables["settings"], raw["npu_regions"])
    for config, modes in data.settings.items():
        for mode, entry in _entries(modes):
            _check_entry(f"{config}.{mode}", entry, registers)
    return data


def _entries(modes: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(mode, entry) for mode, entry in modes.items() if isinstance(entry, dict)]


def _check_entry(where: str, entry: dict[str, Any], registers: tuple[Register, ...]) -> None:
    if "unprogrammed" in entry:
        return
    for axi in AXI_NAMES:
        values = entry.get(axi)
        if not isinstance(values, dict) or set(values) != {r.name for r in registers}:
            raise _data_error(f"settings.{where}.{axi} must set every register once")
        for reg in registers:
            if not 0 <= int(values[reg.name]) < (1 << 32):
                raise _data_error(f"settings.{where}.{axi}.{reg.name} must be a 32-bit "
                                  "unsigned value")


def _modes_of(data: NpuAxiData, system_config: str) -> dict[str, Any]:
    modes = data.settings.get(system_config)
    if modes is None:
        raise OrchestratorError(f"no timing-adapter settings for system config {system_config}",
                                f"add it to {NPU_AXI_DATA}")
    same_as = modes.get("same_as")
    return _modes_of(data, str(same_as)) if same_as else modes


def _matching(table: dict[str, Any], memory_mode: str) -> dict[str, Any] | None:
    """The entry whose key occurs in `memory_mode` (upstream's CMake MATCHES)."""
    return next((entry for key, entry in table.items()
                 if isinstance(entry, dict) and key in memory_mode), None)


def npu_axi(platform: str, system_config: str, memory_mode: str) -> NpuAxi:
    """The timing adapters and region routing the runner programs for this combination."""
    data = npu_axi_data()
    entry = _matching(_modes_of(data, system_config), memory_mode)
    if entry is None:
        raise OrchestratorError(f"no timing-adapter settings for {system_config} with "
                                f"memory mode {memory_mode}", f"add them to {NPU_AXI_DATA}")
    adapters: tuple[TimingAdapter, ...] = ()
    if "unprogrammed" not in entry:
        bases = data.bases.get(platform)
        if bases is None:
            raise OrchestratorError(f"platform {platform} has no timing-adapter bases",
                                    f"add them to {NPU_AXI_DATA}")
        adapters = tuple(
            TimingAdapter(axi, base, str(entry[f"{axi}_memory"]),
                          tuple((reg.name, int(entry[axi][reg.name])) for reg in data.registers))
            for axi, base in zip(AXI_NAMES, bases, strict=True))
    routing = _matching(data.regions, memory_mode) or {}
    regioncfg = routing.get("regioncfg")
    return NpuAxi(system_config, memory_mode, adapters, entry.get("unprogrammed"),
                  routing.get("qconfig"), tuple(regioncfg) if regioncfg else None)
