"""Regress cells of ready artifacts (`pte = [...]` in a lane): planned with no compile, the
target read from the file (or listed, and then refused per cell where the file was compiled for
another), strict keys; and one real regression run on QEMU (needs the upstream sources)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from orchestrator.foundation.paths import scratch
from orchestrator.regress.plan.cells import Mode
from orchestrator.regress.plan.matrix import MatrixError, expand, load_matrix
from orchestrator.targets import load_catalogue

SOURCES_ENV = "ETHOSU_ORCH_TEST_SOURCES"
BUILD_SCRATCH_ENV = "ETHOSU_ORCH_TEST_BUILD_SCRATCH"
SOURCE_TREES = {"executorch": "executorch", "cmsis-nn": "cmsis-nn",
                "ethosu-core-driver": "ethosu-core-driver", "cmsis": "cmsis"}


def matrix_file(folder: Path, foreign: dict[str, Path], lane_extra: str = "",
                targets: str = "") -> Path:
    """A matrix of the U85 .bpte and the U55 .pte, named relative to the matrix file."""
    shutil.copy(foreign["bundled"], folder / "u85.bpte")
    shutil.copy(foreign["ethos-u55-128"], folder / "u55.pte")
    path = folder / "artifacts.toml"
    path.write_text(f'name = "artifacts"\n[[lanes]]\nname = "given"\n'
                    f'pte = ["u85.bpte", "u55.pte"]\nsim = "qemu"\n{targets}{lane_extra}')
    return path


def test_artifact_cells_take_their_target_from_the_file(foreign: dict[str, Path],
                                                        tmp_path: Path) -> None:
    cells = expand(load_matrix(matrix_file(tmp_path, foreign)), load_catalogue())
    assert [(c.key, c.mode, c.compiles, c.simulates, c.sim_kind) for c in cells] == [
        ("u55@ethos-u55-128/default", Mode.PTE, False, True, "qemu"),
        ("u85@ethos-u85-128/default", Mode.PTE, False, True, "qemu")]
    assert cells[1].model_spec == str(tmp_path / "u85.bpte")


def test_listed_targets_make_a_cell_each_and_the_run_refuses_a_mismatch(
        foreign: dict[str, Path], tmp_path: Path) -> None:
    from orchestrator.artifacts.inspection import inspect_artifact
    from orchestrator.artifacts.run import target_of
    from orchestrator.foundation.errors import OrchestratorError

    path = matrix_file(tmp_path, foreign, targets='targets = ["ethos-u85-128"]\n')
    cells = expand(load_matrix(path), load_catalogue())
    assert [c.key for c in cells] == ["u55@ethos-u85-128/default", "u85@ethos-u85-128/default"]
    with pytest.raises(OrchestratorError, match="compiled for ethos-u55-128, not ethos-u85-128"):
        target_of(inspect_artifact(Path(cells[0].model_spec)), cells[0].target)


@pytest.mark.parametrize(("extra", "problem"), [
    ('ptee = ["u85.bpte"]\n', r"unknown keys \['ptee'\]"),
    ('mode = "compile"\n', "pte = \\[...\\] runs ready artifacts"),
    ('models = ["add"]\n', "models and apps do not apply"),
])
def test_a_wrong_key_beside_pte_fails_in_one_sentence(foreign: dict[str, Path], tmp_path: Path,
                                                      extra: str, problem: str) -> None:
    with pytest.raises(MatrixError, match=problem) as caught:
        load_matrix(matrix_file(tmp_path, foreign, extra))
    assert "\n" not in caught.value.message


def test_a_missing_artifact_and_mode_pte_alone_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text('[[lanes]]\npte = "gone.pte"\n')
    with pytest.raises(MatrixError, match="artifacts that do not exist"):
        load_matrix(path)
    path.write_text('[[lanes]]\nmode = "pte"\nmodels = ["add"]\ntargets = ["cortex-m55"]\n')
    with pytest.raises(MatrixError, match="is not one of"):
        load_matrix(path)


def sourced_scratch(root: Path) -> Any:
    """A scratch (reused from $ETHOSU_ORCH_TEST_BUILD_SCRATCH) whose lock names the source
    trees under $ETHOSU_ORCH_TEST_SOURCES, as setup records them."""
    from orchestrator.setup.lock import read_lock, write_lock_entry
    from orchestrator.setup.toolchain import adopt_system_toolchain

    tree = scratch(os.environ.get(BUILD_SCRATCH_ENV) or root / "scratch").ensure()
    adopt_system_toolchain(tree)
    for name, folder in SOURCE_TREES.items():
        if name not in read_lock(tree):
            write_lock_entry(tree, name, {"kind": "source",
                                          "path": str(Path(os.environ[SOURCES_ENV]) / folder)})
    return tree


@pytest.mark.slow
@pytest.mark.needs_sources
def test_regress_runs_artifact_cells_on_qemu(foreign: dict[str, Path], tmp_path: Path) -> None:
    if not os.environ.get(SOURCES_ENV):
        pytest.skip(f"needs upstream sources: set {SOURCES_ENV} (a folder with executorch/, ...)")
    if not shutil.which("qemu-system-arm") or not shutil.which("arm-none-eabi-gcc"):
        pytest.skip("needs qemu-system-arm and arm-none-eabi-gcc (apt-get install them)")
    from orchestrator.commands.regress import regress_command
    from orchestrator.options.regress import RegressTask
    from orchestrator.regress.report.document import LAST_POINTER

    tree = sourced_scratch(tmp_path)
    path = matrix_file(tmp_path, foreign, targets='targets = ["ethos-u85-128"]\n')
    code = regress_command(RegressTask(str(path), quiet=True), scratch_root=str(tree.root))
    pointer = json.loads((tree.runs / LAST_POINTER).read_text())
    report = json.loads(Path(pointer["report"]).read_text())
    cells = {cell["key"]: cell for cell in report["cells"]}
    assert code == 1 and report["compiles"] == []          # nothing compiled
    bundled = cells["u85@ethos-u85-128/default"]
    assert bundled["outcome"] == "pass", bundled["reason"]
    artifact = bundled["result"]["target"]["options"]["artifact"]
    assert artifact["origin"].startswith("given") and len(artifact["sha256"]) == 64
    assert bundled["result"]["target"]["options"]["bundle_cases"] == {"cases": 3, "ran": 3}
    assert bundled["result"]["comparison"]["reference"] == "bundled"
    refused = cells["u55@ethos-u85-128/default"]
    assert refused["outcome"] == "error"
    assert "compiled for ethos-u55-128, not ethos-u85-128" in refused["reason"]
