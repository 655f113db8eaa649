"""The target catalogue: complete, consistent, and clear about bad entries."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import load_toml
from orchestrator.targets import CatalogueError, load_catalogue
from orchestrator.targets.catalogue import CATALOGUE_PATH, parse_catalogue

UPSTREAM_TARGETS = {
    "ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256",
    "ethos-u65-256", "ethos-u65-512",
    "ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048",
    "cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m23",
    "cortex-m33", "cortex-m35p", "cortex-m55", "cortex-m85",
}


@pytest.fixture()
def raw() -> dict[str, Any]:
    return copy.deepcopy(load_toml(CATALOGUE_PATH))


def test_every_upstream_target_is_present_once() -> None:
    names = load_catalogue().names()
    assert set(names) == UPSTREAM_TARGETS
    assert len(names) == len(set(names))


def test_npu_targets_carry_fvp_prefixes_and_vela_defaults() -> None:
    catalogue = load_catalogue()
    u55 = catalogue.target("ethos-u55-128")
    assert (u55.cpu, u55.macs, u55.platform.name) == ("cortex-m55", 128, "corstone-300")
    fvp = u55.simulator("fvp")
    assert fvp is not None and fvp.binary == "FVP_Corstone_SSE-300_Ethos-U55"
    assert (fvp.npu_prefix, fvp.board_prefix) == ("ethosu.", "mps3_board.")
    assert (u55.system_config, u55.memory_mode) == ("Ethos_U55_High_End_Embedded", "Shared_Sram")
    assert len(u55.pmu_events) == 4

    u65 = catalogue.target("ethos-u65-512")
    assert u65.simulator("fvp").binary == "FVP_Corstone_SSE-300_Ethos-U65"  # type: ignore[union-attr]
    assert (u65.system_config, u65.memory_mode) == ("Ethos_U65_High_End", "Sram_Only")

    u85 = catalogue.target("ethos-u85-2048")
    fvp = u85.simulator("fvp")
    assert fvp is not None and fvp.binary == "FVP_Corstone_SSE-320"
    assert (fvp.npu_prefix, fvp.board_prefix) == ("mps4_board.subsystem.ethosu.", "mps4_board.")
    assert (u85.cpu, u85.platform.gcc_cpu) == ("cortex-m85", "cortex-m55")
    assert u85.memory_mode == "Dedicated_Sram_384KB"
    assert "ETHOSU_PMU_MAC_ACTIVE" in u85.pmu_events


def test_cpu_targets_have_no_npu_and_cortex_m55_runs_on_qemu() -> None:
    catalogue = load_catalogue()
    m55 = catalogue.target("cortex-m55")
    assert not m55.has_npu and m55.platform.name == "mps3-an547"
    qemu = m55.simulator("qemu")
    assert qemu is not None and qemu.machine == "mps3-an547"
    assert qemu.capabilities.npu is False
    assert catalogue.target("cortex-m85").simulator("qemu") is None


def test_secure_memory_map_of_corstone_300() -> None:
    platform = load_catalogue().platforms["corstone-300"]
    assert platform.region("ITCM").origin == 0x10000000
    assert platform.region("DTCM").origin == 0x30000000
    assert platform.region("SRAM").origin == 0x31000000
    assert platform.region("DDR").origin == 0x70000000
    assert platform.uart0 == 0x59303000


def test_unknown_target_names_the_closest_valid_ones() -> None:
    with pytest.raises(OrchestratorError) as caught:
        load_catalogue().target("ethos-u58-128")
    message = caught.value.message
    assert "unknown target 'ethos-u58-128'" in message
    assert "ethos-u55-128" in message and "invoke targets" in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["platforms"]["corstone-300"].pop("uart0"),
         "platforms.corstone-300: missing key 'uart0'"),
        (lambda d: d["platforms"]["mps3-an547"].update(colour="red"),
         "platforms.mps3-an547: unknown key 'colour'"),
        (lambda d: d["npu_families"]["ethos-u55"].update(macs=[128, 128]),
         "npu_families.ethos-u55: duplicate MAC configuration"),
        (lambda d: d["npu_families"]["ethos-u65"].update(platform="corstone-999"),
         "npu_families.ethos-u65: refers to unknown platform 'corstone-999'"),
        (lambda d: d["npu_families"]["ethos-u85"].update(memory_mode="Nowhere"),
         "npu_families.ethos-u85: default memory_mode is not in memory_modes"),
        (lambda d: d["cpu_targets"].update({"ethos-u55-128": d["cpu_targets"]["cortex-m55"]}),
         "targets.ethos-u55-128: duplicate target name"),
        (lambda d: d["simulators"]["qemu"].update(kind="renode"),
         "simulators.qemu: kind must be one of qemu, fvp"),
        (lambda d: d["platforms"]["corstone-320"]["regions"][0].update(length="big"),
         "platforms.corstone-320.regions[0]: key 'length' must be int"),
        (lambda d: d["platforms"]["corstone-300"]["regions"][0].update(length=0x02000000),
         "platforms.corstone-300: regions ITCM and BRAM overlap"),
        (lambda d: d["cpu_targets"]["cortex-m85"].update(simulators=["qemu"]),
         "targets.cortex-m85: simulator qemu cannot run platform corstone-320"),
    ],
)
def test_bad_entry_is_named(raw: dict[str, Any], mutate: Any, expected: str) -> None:
    mutate(raw)
    with pytest.raises(CatalogueError, match=re.escape(expected)):
        parse_catalogue(raw)
