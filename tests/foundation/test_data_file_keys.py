"""Every TOML file the tool reads is loaded through a layout that names its keys: a misspelt
key in any data file (or a setup config) is refused in one sentence naming the file, the table
and the key, never dropped or read as its default."""

from __future__ import annotations

import ast
import copy
from pathlib import Path
from typing import Any

import pytest

from orchestrator.aot.models.catalogue import MODELS_LAYOUT
from orchestrator.firmware.build.config import FIRMWARE_LAYOUT
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.pins import PINS_LAYOUT
from orchestrator.foundation.tomlfile import DATA_DIR, Layout, check_keys, load_data, load_toml
from orchestrator.npu_model.coverage import TABLE_LAYOUT
from orchestrator.npu_model.coverage_gen import REACHED_LAYOUT, STATUS_LAYOUT
from orchestrator.npu_model.vela_faults import FAULTS_LAYOUT
from orchestrator.parse.classify import CLASSIFICATIONS_LAYOUT
from orchestrator.parse.fvp_stops import FVP_STOPS_LAYOUT
from orchestrator.parse.runner import RUN_MARKERS_LAYOUT
from orchestrator.profile.sources import PROFILE_LAYOUT
from orchestrator.setup.options import CONFIG_LAYOUT, load_config
from orchestrator.targets.catalogue import CATALOGUE_LAYOUT
from orchestrator.targets.npu_axi import NPU_AXI_LAYOUT
from orchestrator.targets.runner_data import RUNNER_LAYOUT
from orchestrator.toolsets.catalogue import TOOLSETS_LAYOUT

REPO = Path(__file__).resolve().parents[2]

# file -> (its layout, a table path where a misspelt key is planted, the key's table as named)
# (a path step that is an int indexes an array of tables; targets.toml's entries are checked
# with their types by the catalogue itself, tests/foundation/test_catalogue.py).
CASES: dict[str, tuple[dict[str, Layout], tuple[str | int, ...], str]] = {
    "classifications.toml": (CLASSIFICATIONS_LAYOUT, ("timeout", "causes", "hang"),
                             "timeout.causes.hang"),
    "firmware.toml": (FIRMWARE_LAYOUT, ("layout",), "layout"),
    "fvp_stops.toml": (FVP_STOPS_LAYOUT, ("limits", 0), "limits[0]"),
    "models.toml": (MODELS_LAYOUT, ("builtin", "add"), "builtin.add"),
    "npu_axi.toml": (NPU_AXI_LAYOUT, ("npu_regions", "Sram_Only"), "npu_regions.Sram_Only"),
    "npu_coverage.toml": (TABLE_LAYOUT, ("u85", 3), "u85[3]"),
    "npu_coverage_reached.toml": (REACHED_LAYOUT, (), ""),
    "npu_coverage_status.toml": (STATUS_LAYOUT, ("u85",), "u85"),
    "pins.toml": (PINS_LAYOUT, ("artifacts", "toolchain", "hosts", "linux-x86_64"),
                  "artifacts.toolchain.hosts.linux-x86_64"),
    "profile.toml": (PROFILE_LAYOUT, ("sources", "systick"), "sources.systick"),
    "run_markers.toml": (RUN_MARKERS_LAYOUT, ("completion", 0), "completion[0]"),
    "runner.toml": (RUNNER_LAYOUT, ("defaults",), "defaults"),
    "targets.toml": (CATALOGUE_LAYOUT, (), ""),
    "toolsets.toml": (TOOLSETS_LAYOUT, ("toolsets", "et-1.4.1"), "toolsets.et-1.4.1"),
    "vela_stream_faults.toml": (FAULTS_LAYOUT, ("fault", 0), "fault[0]"),
}


def test_every_data_file_has_a_case() -> None:
    assert sorted(p.name for p in DATA_DIR.glob("*.toml")) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_shipped_file_fits_its_layout(name: str) -> None:
    layout, _, _ = CASES[name]
    assert load_data(DATA_DIR / name, layout) == load_toml(DATA_DIR / name)


def _planted(data: dict[str, Any], where: tuple[str | int, ...], key: str) -> dict[str, Any]:
    planted = copy.deepcopy(data)
    table: Any = planted
    for step in where:
        table = table[step]
    assert key not in table
    table[key] = 1
    return planted


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_misspelt_key_is_refused_naming_file_table_and_key(name: str) -> None:
    layout, where, table = CASES[name]
    data = _planted(load_toml(DATA_DIR / name), where, "nmae_misspelt")
    with pytest.raises(OrchestratorError) as caught:
        check_keys(data, layout, name)
    place = f"in table [{table}]" if table else "at the top level"
    assert caught.value.message.startswith(
        f"{name}: unknown key 'nmae_misspelt' {place} (known there: ")
    assert f"orchestrator/data/{name}" in caught.value.next_step


def _calls_load_toml(path: Path) -> bool:
    tree = ast.parse(path.read_text())
    return any(isinstance(node, ast.Name) and node.id == "load_toml" for node in ast.walk(tree))


def test_no_loader_reads_toml_without_a_layout() -> None:
    """Only the regress matrix (checked key by key by its own parser, tests/regress/
    test_matrix.py) reads TOML without a layout; every other reader goes through load_data."""
    readers = sorted(str(p.relative_to(REPO)) for p in (REPO / "orchestrator").rglob("*.py")
                     if _calls_load_toml(p))
    assert readers == ["orchestrator/foundation/tomlfile.py",
                       "orchestrator/regress/plan/matrix.py"]


def test_a_misspelt_setup_config_key_is_refused_naming_the_file(tmp_path: Path) -> None:
    config = tmp_path / "setup.toml"
    config.write_text('mirror = ""\nofline = true\n')
    with pytest.raises(OrchestratorError) as caught:
        load_config(str(config), {})
    assert caught.value.message.startswith(
        "setup.toml: unknown key 'ofline' at the top level (known there: ")
    assert str(config) in caught.value.next_step
    config.write_text('offline = true\n[sources]\nexecutorch = "/x"\n')
    assert load_config(str(config), {}) == {"offline": True, "sources": {"executorch": "/x"}}
    assert set(CONFIG_LAYOUT) >= {"offline", "sources", "mirror"}
