"""The toolset A/B on real compiles: the shipped small matrix (add, convnet, ds_cnn on
U55-128 and U85-128) under the pinned stack and ExecuTorch 1.5.1 (installed from the
registry into the fixture cache), a Vela-only pair that lowers once, and a deliberately
changed Vela flag the report must show."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from toolset_helpers import needs_aot

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.plan.matrix import expand, load_matrix
from orchestrator.regress.report.toolset_ab import write_ab_reports
from orchestrator.regress.toolset_ab import run_ab
from orchestrator.targets import load_catalogue
from orchestrator.toolsets.catalogue import default_toolset, find_toolset
from orchestrator.toolsets.environment import TOOLSETS_DIR

pytestmark = pytest.mark.slow
MATRIX = Path(__file__).resolve().parents[2] / "examples" / "regress" / "toolsets.toml"


def _cells(model: str) -> list:
    return [cell for cell in expand(load_matrix(MATRIX), load_catalogue())
            if cell.model == model]


def _fresh(tmp_path: Path, toolset_cache: Scratch) -> Scratch:
    where = scratch(tmp_path / "scratch").ensure()
    (toolset_cache.root / TOOLSETS_DIR).mkdir(exist_ok=True)
    (where.root / TOOLSETS_DIR).symlink_to(toolset_cache.root / TOOLSETS_DIR)
    return where


def test_a_changed_vela_flag_is_a_difference_the_report_shows(tmp_path, toolset_cache):
    needs_aot()
    sized = replace(default_toolset(), name="pinned-optimise-size", default=False,
                    vela_flags=("--optimise", "Size"))
    document = run_ab(_cells("convnet"), (default_toolset(), sized),
                      _fresh(tmp_path, toolset_cache), "v1.4.1")
    by_target = {entry["target"]: entry for entry in document["cells"]}
    u55 = by_target["ethos-u55-128"]
    assert u55["a"]["exact"] is True and u55["b"]["exact"] is True
    assert u55["outputs"]["agree"] is True and u55["first_difference"] is None
    sram = u55["vela_estimates"]["sram_used_kib"]
    assert sram["b"] < sram["a"] and sram["ratio"] == round(sram["b"] / sram["a"], 4)
    assert u55["delegation_changes"] == []
    document["matrix"] = str(MATRIX)
    paths = write_ab_reports(tmp_path / "report", document)
    markdown = paths["toolsets.md"].read_text()
    assert "pinned-optimise-size" in markdown and f"x{sram['ratio']}" in markdown
    assert "convnet@ethos-u55-128/default" in paths["toolsets.html"].read_text()
    assert json.loads(paths["toolsets.json"].read_text())["cells"][0]["key"].startswith(
        "convnet@")


def test_the_small_matrix_under_executorch_1_4_1_and_1_5_1(installed, ab_scratch, capsys):
    installed("et-1.5.1")
    code = regress_command(RegressTask(matrix=str(MATRIX), toolsets="et-1.4.1,et-1.5.1"),
                           json=True, scratch_root=str(ab_scratch.root))
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and len(document["cells"]) == 6
    for entry in document["cells"]:
        assert entry["a"]["compiled"] and entry["b"]["compiled"], entry
        assert (entry["a"]["versions"]["executorch"], entry["b"]["versions"]["executorch"]) \
            == ("1.4.1", "1.5.1")
        assert entry["a"]["exact"] is True and entry["b"]["exact"] is True, entry
        assert entry["outputs"]["agree"] is not None
        assert (entry["first_difference"] is None) == entry["outputs"]["agree"]
    report = next(ab_scratch.runs.glob("*-toolsets"))
    assert sorted(path.name for path in report.iterdir()) == [
        "toolsets.html", "toolsets.json", "toolsets.md"]


def test_a_vela_only_toolset_lowers_once(installed, tmp_path, toolset_cache):
    installed("vela-5.2.0")
    where = _fresh(tmp_path, toolset_cache)
    document = run_ab(_cells("convnet"), (default_toolset(), find_toolset("vela-5.2.0")),
                      where, "v1.4.1")
    for entry in document["cells"]:
        first, second = (json.loads((Path(entry[side]["product"]) / "manifest.json")
                                    .read_text()) for side in ("a", "b"))
        assert second["lowering"]["key"] == first["lowering"]["key"]
        assert second["lowering"]["configured_seconds"] is not None
        assert (second["versions"]["ethos-u-vela"], second["toolset"]) == ("5.2.0",
                                                                           "vela-5.2.0")
        assert entry["b"]["exact"] is True
    lowered = [path.name for path in (where.models / "lowered").iterdir()
               if path.name.startswith("convnet_")]
    assert len(lowered) == 2, lowered   # one per NPU family (U55's TOSA profile, U85's)


def test_a_matrix_under_another_toolset_skips_its_runtime_lane_with_the_reason(
        installed, ab_scratch, tmp_path, capsys):
    installed("et-1.5.1")
    matrix = tmp_path / "m.toml"
    matrix.write_text('schema = 1\nname = "under-1.5.1"\n'
                      '[[lanes]]\nname = "host"\nmode = "verify"\nmodels = ["add"]\n'
                      'targets = ["ethos-u85-128"]\n'
                      '[[lanes]]\nname = "qemu"\nmode = "run"\nsim = "qemu"\n'
                      'models = ["add"]\ntargets = ["ethos-u55-128"]\n')
    code = regress_command(RegressTask(matrix=str(matrix), toolsets="et-1.5.1"), json=True,
                           scratch_root=str(ab_scratch.root))
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["toolset"]["name"] == "et-1.5.1"
    by_mode = {cell["mode"]: cell for cell in document["cells"]}
    assert by_mode["verify"]["outcome"] == "pass"
    assert by_mode["verify"]["result"]["versions"]["executorch"] == "1.5.1"
    assert by_mode["run"]["outcome"] == "skipped"
    assert "not run under et-1.5.1: its runtime needs ExecuTorch sources at v1.5.1" in \
        by_mode["run"]["reason"]
