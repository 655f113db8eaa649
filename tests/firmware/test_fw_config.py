"""Build configs: keys and the CMake definitions taken from the catalogue (no build)."""

from __future__ import annotations

from orchestrator.firmware.build import config_for_target
from orchestrator.firmware.build.config import firmware_data


def test_definitions_come_from_the_catalogue_and_layout_data():
    config = config_for_target("ethos-u85-256", build_type="debug")
    values = config.definitions()
    assert values["EOR_PLATFORM"] == "corstone-320" and values["EOR_CPU"] == "cortex-m55"
    assert values["EOR_NPU_CONFIG"] == "ethos-u85-256" and values["CMAKE_BUILD_TYPE"] == "Debug"
    assert values["EOR_UART0_BASE"] == f"0x{config.platform.uart0:08x}"
    regions = values["EOR_MEMORY_REGIONS"].split(";")
    assert regions[0] == "ITCM:0x10000000:0x8000" and len(regions) == len(config.platform.regions)
    assert int(values["EOR_STACK_SIZE"], 16) == firmware_data()["layout"]["stack_size"]
    assert config.key == "selftest-corstone-320-ethos-u85-256-debug"


def test_options_override_layout_and_change_the_key():
    plain = config_for_target("cortex-m55")
    tuned = config_for_target("cortex-m55", options=["EOR_HEAP_SIZE=0x2000"])
    assert tuned.definitions()["EOR_HEAP_SIZE"] == "0x2000"
    assert plain.key == "selftest-mps3-an547-cpu-release" and tuned.key.startswith(plain.key + "-")
    assert config_for_target("cortex-m55", options=["EOR_HEAP_SIZE=0x2000"]).key == tuned.key
