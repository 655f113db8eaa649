"""The real stages' cheap decisions: skip reasons, firmware configs, option routing."""

from __future__ import annotations

import pytest

from orchestrator.foundation.paths import scratch
from orchestrator.regress.lanes.real_stages import RealStages, vela_estimate
from orchestrator.regress.plan.cell_options import compile_choices
from orchestrator.regress.plan.matrix import expand, load_matrix
from orchestrator.targets import load_catalogue

MATRIX = """
[options]
sram = { memory_mode = "Sram_Only", atol = 0.1 }
fault = { build_options = ["EOR_SELFTEST_BEHAVIOUR=fault"], idle_timeout_s = 5 }
[[lanes]]
name = "models"
models = ["add", "convnet"]
targets = ["cortex-m55"]
sim = "qemu"
[[lanes]]
name = "npu"
models = ["add"]
targets = ["ethos-u85-128"]
options = ["default", "sram"]
sim = "fvp"
[[lanes]]
name = "apps"
mode = "app"
apps = ["selftest"]
targets = ["cortex-m55"]
options = ["default", "fault"]
sim = "qemu"
"""


@pytest.fixture
def cells(tmp_path):
    path = tmp_path / "m.toml"
    path.write_text(MATRIX)
    return {cell.key: cell for cell in expand(load_matrix(path), load_catalogue())}


@pytest.fixture
def stages(tmp_path):
    return RealStages(scratch(tmp_path / "scratch").ensure())


def test_missing_fvp_and_missing_sources_are_reasons_with_next_steps(cells, stages):
    fvp = stages.unavailable(cells["add@ethos-u85-128/default"])
    assert fvp == ("fvp-corstone-320 is not set up in "
                   f"{stages.tree.root}; next: invoke setup --only fvp-corstone-320")
    model = stages.unavailable(cells["add@cortex-m55/default"])
    assert model.startswith("no executorch source tree is set up; next: invoke setup --only "
                            "sources")


def test_models_share_one_runner_build_per_config(cells, stages):
    keys = {key: stages.firmware_config(cell).key for key, cell in cells.items()}
    assert keys["add@cortex-m55/default"] == keys["convnet@cortex-m55/default"]
    assert keys["add@ethos-u85-128/default"] != keys["add@ethos-u85-128/sram"]
    assert "Sram_Only" in keys["add@ethos-u85-128/sram"]
    assert keys["selftest@cortex-m55/default"] == "selftest-mps3-an547-cpu-release"
    assert keys["selftest@cortex-m55/fault"].startswith("selftest-mps3-an547-cpu-release-")
    assert len(set(keys.values())) == 5


def test_only_compile_options_reach_the_compiler(cells):
    assert compile_choices(cells["add@ethos-u85-128/sram"].option_dict).given() == {
        "memory_mode": "Sram_Only"}
    assert compile_choices(cells["selftest@cortex-m55/fault"].option_dict).given() == {}


def test_vela_totals_map_to_the_result_estimate():
    estimate = vela_estimate({"npu_cycles": 384, "total_cycles": 400, "sram_access_cycles": 16,
                              "off_chip_flash_used_kib": 2.2, "cpu_operators": 0})
    assert (estimate.npu_cycles, estimate.total_cycles, estimate.cpu_operators) == (384, 400, 0)
    assert estimate.offchip_flash_used_kib == 2.2 and estimate.access_cycles == {"sram": 16}
    assert vela_estimate(None) is None and vela_estimate({}) is None
