"""examples/regress/qemu-npu.toml for real: Ethos-U targets in a regression job on QEMU
through the NPU model. The npuselftest cell needs no upstream sources (CI runs
it); the runner cells run when $ETHOSU_ORCH_TEST_SOURCES names the runtime sources, and are
skipped with the setup command otherwise. The metric rules: outputs and accuracy are tracked,
NPU cycles and CPU cycles of such runs never enter a baseline."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_qemu_lane import BUILD_SCRATCH_ENV, record_sources, require_lane_tools

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import repo_root, scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.report.document import LAST_POINTER
from orchestrator.sim.plan import NPU_MODEL_VERSION

pytestmark = pytest.mark.slow

EXAMPLE = repo_root() / "examples" / "regress" / "qemu-npu.toml"
APP_CELL = "npuselftest@ethos-u55-128/default"


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    require_lane_tools()
    from orchestrator.setup.toolchain import adopt_system_toolchain

    root = tmp_path_factory.mktemp("qemu-npu")
    matrix = root / EXAMPLE.name
    shutil.copy(EXAMPLE, matrix)
    tree = scratch(os.environ.get(BUILD_SCRATCH_ENV) or root / "scratch").ensure()
    adopt_system_toolchain(tree)
    models = record_sources(tree)

    def run(**flags):
        code = regress_command(RegressTask(str(matrix), quiet=True, **flags),
                               scratch_root=str(tree.root))
        pointer = json.loads((tree.runs / LAST_POINTER).read_text())
        document = json.loads(Path(pointer["report"]).read_text())
        return code, {cell["key"]: cell for cell in document["cells"]}

    first = run(jobs=1, update_baselines=True)
    second = run(jobs=2)
    return models, first, second, root / "qemu-npu.baselines.json"


def test_npu_selftest_cell_runs_on_the_npu_model(runs):
    _, (code, cells), _, _ = runs
    cell = cells[APP_CELL]
    assert cell["outcome"] == "pass", cell["reason"]
    result = cell["result"]
    assert result["target"]["simulator"] == "qemu"
    assert result["npu"]["executor"] == "npu-model"
    assert result["versions"]["extra"][NPU_MODEL_VERSION].startswith("npu_model ")
    assert result["versions"]["vela"] and result["versions"]["executorch"]
    # the metric rules: no NPU timing, no CPU cycles that include the model's emulation
    assert not any(name.startswith(("npu.", "pmu.", "cpu.")) for name in cell["metrics"])


def test_runner_cells_run_on_the_npu_model_or_skip_without_sources(runs):
    models, (code, cells), _, _ = runs
    runner_cells = [key for key in cells if key != APP_CELL]
    assert len(runner_cells) == 6
    for key in runner_cells:
        cell = cells[key]
        if not models:
            assert cell["outcome"] == "skipped"
            assert "invoke setup --only sources" in cell["reason"]
            continue
        assert cell["outcome"] == "pass", cell["reason"]
        result = cell["result"]
        assert result["npu"]["executor"] == "npu-model"
        assert result["cpu"]["includes_npu_model"] is True
        assert "accuracy.snr_db" in cell["metrics"] and "vela.npu_cycles" in cell["metrics"]
        assert not any(name.startswith(("npu.", "pmu.", "cpu.")) for name in cell["metrics"])
        assert result["versions"]["runtime_commit"]
    assert code == 0


def test_second_run_matches_the_baselines_it_recorded(runs):
    _, _, (code, cells), baselines = runs
    assert code == 0
    assert baselines.is_file()
    assert cells[APP_CELL]["outcome"] == "pass"
    assert all(c["baseline"]["status"] == "ok" for c in cells.values() if c.get("baseline"))
