"""Real builds of the selftest for every platform: link, memory report, no-op, overflow."""

from __future__ import annotations

import re

import pytest

from orchestrator.firmware.build import build_firmware, config_for_target
from orchestrator.firmware.build.config import firmware_data
from orchestrator.firmware.build.elf import read_elf
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow

# One target per platform: QEMU's mps3-an547, Corstone-300 (U55), Corstone-320 (M85).
PLATFORM_TARGETS = {"mps3-an547": "cortex-m55", "corstone-300": "ethos-u55-128",
                    "corstone-320": "cortex-m85"}
_LD_USAGE = re.compile(r"^\s*(\w+):\s+(\d+) (B|KB|MB|GB)\s+(\d+) (B|KB|MB|GB)", re.M)
_SCALE = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}


def ld_memory_usage(build_log: str) -> dict[str, tuple[int, int]]:
    """GNU ld's own --print-memory-usage table: region -> (used, unit scale)."""
    return {m.group(1): (int(m.group(2)) * _SCALE[m.group(3)], _SCALE[m.group(3)])
            for m in _LD_USAGE.finditer(build_log)}


@pytest.mark.parametrize("platform", sorted(PLATFORM_TARGETS))
def test_selftest_links_for_every_platform(builds, platform):
    result = builds.get(PLATFORM_TARGETS[platform])
    assert result.config.platform.name == platform
    assert result.elf.is_file() and result.map_file.is_file()
    assert re.fullmatch(r"[0-9a-f]{40}", result.build_id)
    assert read_elf(result.elf).build_id == result.build_id
    catalogue_regions = load_catalogue().platforms[platform].regions
    assert [(r.name, r.origin, r.length) for r in result.regions] == [
        (r.name, r.origin, r.length) for r in catalogue_regions]


@pytest.mark.parametrize("platform", sorted(PLATFORM_TARGETS))
def test_region_report_matches_the_linker(builds, platform):
    result = builds.get(PLATFORM_TARGETS[platform])
    printed = ld_memory_usage((result.build_dir / "build.log").read_text())
    assert set(printed) == {region.name for region in result.regions}
    for region in result.regions:
        used, scale = printed[region.name]
        # ld rounds to its unit; ours is exact bytes
        assert used <= region.used < used + scale, region.name


def test_sections_land_in_the_platform_regions(builds):
    c300 = {s.name: s for s in builds.get("ethos-u55-128").sections}
    assert c300[".vectors"].region == "ITCM" and c300[".text"].region == "ITCM"
    assert c300[".data"].region == "DTCM" and c300[".data"].load_region == "ITCM"
    assert c300[".stack"].region == "DTCM" and c300[".heap"].region == "DDR"
    c320 = {s.name: s for s in builds.get("cortex-m85").sections}
    assert c320[".vectors"].region == "BROM" and c320[".text"].region == "BRAM"
    assert c320[".stack"].region == "DTCM"


def test_model_and_input_areas_are_fixed_in_ddr(builds):
    layout = firmware_data()["layout"]
    for target in ("cortex-m55", "cortex-m85"):
        result = builds.get(target)
        ddr = result.config.platform.region("DDR")
        model, input_area = result.area("model_area"), result.area("input_area")
        assert model == (ddr.origin, layout["model_area_size"])
        assert input_area[0] >= model[0] + model[1]
        assert input_area[1] == layout["input_area_size"]
        assert result.area("stack")[1] == layout["stack_size"]


def test_layout_options_change_the_image(builds):
    result = builds.get("cortex-m55", "EOR_STACK_SIZE=0x4000", "EOR_MODEL_AREA_SIZE=0x100000")
    assert result.area("stack")[1] == 0x4000
    assert result.area("model_area")[1] == 0x100000
    assert result.key != builds.get("cortex-m55").key


def test_second_build_is_a_no_op(builds, fw_scratch):
    first = builds.get("cortex-m55")
    stamp = first.elf.stat().st_mtime_ns
    again = build_firmware(fw_scratch, config_for_target("cortex-m55"))
    assert not again.configured and not again.rebuilt
    assert again.elf.stat().st_mtime_ns == stamp
    assert again.build_id == first.build_id


def test_overflow_names_region_and_bytes(fw_scratch):
    config = config_for_target("cortex-m55", options=["EOR_SELFTEST_BLOAT=600000"])
    with pytest.raises(OrchestratorError) as caught:
        build_firmware(fw_scratch, config)
    message = caught.value.message
    match = re.search(r"region DTCM overflowed by (\d+) bytes", message)
    assert match, message
    assert "does not fit in memory" in message and "invoke build --option" in message
    # DTCM holds .data + .bss (with the 600000-byte array) + the stack: the excess is exact
    dtcm = config.platform.region("DTCM").length
    assert 600000 + 0x8000 - dtcm < int(match.group(1)) < 600000 + 0x8000 - dtcm + 4096


def test_unknown_option_and_app_are_one_line_errors():
    with pytest.raises(OrchestratorError, match="unknown selftest build option 'EOR_NOPE'"):
        config_for_target("cortex-m55", options=["EOR_NOPE=1"])
    with pytest.raises(OrchestratorError, match="unknown app 'selftset'.*did you mean selftest"):
        config_for_target("cortex-m55", app="selftset")
    with pytest.raises(OrchestratorError, match="is not NAME=value"):
        config_for_target("cortex-m55", options=["EOR_STACK_SIZE"])


def test_concurrent_builds_of_one_config_are_serialised(fw_scratch):
    from concurrent.futures import ThreadPoolExecutor

    config = config_for_target("cortex-m55", options=["EOR_HEAP_SIZE=0x3000"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: build_firmware(fw_scratch, config), range(2)))
    assert results[0].build_id == results[1].build_id
    assert sorted(result.rebuilt for result in results) == [False, True]


def test_image_tables_are_read_once_per_content(builds, tmp_path, monkeypatch):
    """The build's tables equal a fresh reading of its ELF and map; kept, they are read back
    without the readers; a changed ELF (another image in its place) is read again."""
    import shutil

    from orchestrator.firmware.build import image_tables as tables_module

    monkeypatch.setenv("ETHOSU_ORCH_CACHE_DIR", str(tmp_path / "cache"))
    first, other = builds.get("cortex-m55"), builds.get("cortex-m3")
    elf, map_file = tmp_path / "app.elf", tmp_path / "app.map"
    shutil.copy2(first.elf, elf)
    shutil.copy2(first.map_file, map_file)
    read = tables_module.image_tables(elf, map_file)
    assert (read.build_id, read.sections, read.regions) == \
        (first.build_id, first.sections, first.regions)
    assert read.build_id == read_elf(first.elf).build_id
    direct = tables_module._read
    monkeypatch.setattr(tables_module, "_read", _unread)
    assert tables_module.image_tables(elf, map_file) == read
    shutil.copy2(other.elf, elf)
    shutil.copy2(other.map_file, map_file)
    with pytest.raises(AssertionError, match="read again"):
        tables_module.image_tables(elf, map_file)
    monkeypatch.setattr(tables_module, "_read", direct)
    assert tables_module.image_tables(elf, map_file).build_id == other.build_id


def _unread(*_args: object) -> None:
    raise AssertionError("the image was read again")
