"""Timing-adapter and NPU region data (orchestrator/data/npu_axi.toml) for every
(system config, memory mode) a target offers, checked against what upstream's
corstone_utils.cmake (ExecuTorch v1.4.1) sets; with the upstream sources, the whole table is
compared with the file so drift is caught."""

from __future__ import annotations

import re

import pytest

from orchestrator.targets import load_catalogue
from orchestrator.targets.npu_axi import npu_axi, npu_axi_data

PAIRS = sorted({(t.platform.name, config, mode)
                for t in load_catalogue() if t.has_npu
                for config in t.npu.system_configs for mode in t.npu.memory_modes})
BASES = {"corstone-300": (0x58103000, 0x58103200), "corstone-320": (0x50006000, 0x50006800)}


@pytest.mark.parametrize(("platform", "config", "mode"), PAIRS)
def test_every_system_config_and_memory_mode_has_explicit_data(platform, config, mode):
    axi = npu_axi(platform, config, mode)
    if axi.unprogrammed:
        # upstream has no Shared_Sram branch for the U85: nothing is programmed, and says why
        assert config.startswith("Ethos_U85") and mode == "Shared_Sram"
        assert axi.timing_adapters == ()
    else:
        assert [ta.base for ta in axi.timing_adapters] == list(BASES[platform])
        assert [ta.axi for ta in axi.timing_adapters] == ["axi0", "axi1"]
        writes = axi.timing_adapters[0].writes(npu_axi_data().registers)
        assert len(writes) == 13 and writes[0][0] == BASES[platform][0]
        assert 0x58103000 + 0x2C not in [address for address, _ in writes]  # MAXPENDING: RO
    if mode == "Sram_Only":
        assert axi.driver_definitions() == ["NPU_QCONFIG=1", "NPU_REGIONCFG_0=1"] + [
            f"NPU_REGIONCFG_{i}=0" for i in range(1, 8)]
    elif mode.startswith("Dedicated_Sram"):
        assert axi.driver_definitions() == ["NPU_QCONFIG=3", "NPU_REGIONCFG_0=3",
                                            "NPU_REGIONCFG_1=3"] + [
            f"NPU_REGIONCFG_{i}=0" for i in range(2, 8)]
    else:
        assert axi.driver_definitions() == []   # Shared_Sram: the driver's defaults
    assert axi.record()["memory_mode"] == mode


def test_spot_values_and_masking_match_upstream():
    u55 = npu_axi("corstone-300", "Ethos_U55_High_End_Embedded", "Shared_Sram")
    assert dict(u55.timing_adapters[1].values)["pulse_on"] == 320   # flash, cmake line 141
    u85 = npu_axi("corstone-320", "Ethos_U85_SYS_DRAM_High", "Dedicated_Sram_384KB")
    assert dict(u85.timing_adapters[1].values)["rlatency"] == 500   # same branch as Mid
    # upstream's MAXR 64 does not fit the 6-bit field: the driver writes 64 & 0x3F = 0
    assert u85.record()["masked"] == ["axi1.maxr 64 -> 0"]
    assert (0x50006800, 0) in u85.timing_adapters[1].writes(npu_axi_data().registers)


def _upstream_tables(text: str) -> dict[tuple[str, str], dict[str, int]]:
    """(system config, memory mode) -> {FIELD_<n>: value} from configure_timing_adapters."""
    body = text[text.index("function(configure_timing_adapters"):]
    body = body[:body.index("endfunction()")]
    tables: dict[tuple[str, str], dict[str, int]] = {}
    configs: list[str] = []
    for line in body.splitlines():
        if names := re.findall(r'SYSTEM_CONFIG (?:MATCHES|STREQUAL) "(\w+)"', line):
            configs = configs + names if line.strip().startswith("OR") else names
        elif mode := re.search(r'MEMORY_MODE MATCHES "(\w+)"', line):
            current = [(config, mode[1]) for config in configs]
        elif value := re.search(r"ETHOSU_TA_(\w+)_([01])=(\d+)", line):
            for key in current:
                tables.setdefault(key, {})[f"{value[1].lower()}_{value[2]}"] = int(value[3])
    return tables


@pytest.mark.needs_sources
def test_data_equals_upstream_corstone_utils(runtime_sources):
    path = runtime_sources["executorch"] / "backends/arm/scripts/corstone_utils.cmake"
    upstream = _upstream_tables(path.read_text())
    assert len(upstream) == 13   # 11 branches; Mid and High share one
    for (config, mode), fields in upstream.items():
        platform = "corstone-320" if "U85" in config else "corstone-300"
        ours = npu_axi(platform, config, mode)
        mine = {f"{name}_{index}": value for index, ta in enumerate(ours.timing_adapters)
                for name, value in ta.values}
        assert mine == fields, (config, mode)
