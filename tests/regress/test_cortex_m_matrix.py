"""The shipped Cortex-M matrix (examples/regress/cortex-m.toml) expands to cells on every
CPU's own QEMU board, the MLPerf Tiny four on scalar, DSP and MVE cores, and the M55's DSP
override as an option set; a lane may name one board's simulator (sim = "qemu-mps3-an524"),
validated against the catalogue."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.regress.plan.matrix import MatrixError, expand, load_matrix
from orchestrator.targets import load_catalogue

MATRIX = Path(__file__).resolve().parents[2] / "examples" / "regress" / "cortex-m.toml"
MLPERF_TINY = {"deep_autoencoder", "ds_cnn", "mobilenet_v1_025", "resnet8"}


def test_every_cpu_target_runs_on_its_board() -> None:
    catalogue = load_catalogue()
    cells = list(expand(load_matrix(MATRIX), catalogue))
    selftest = {cell.target: cell.sim for cell in cells if cell.lane == "selftest"}
    assert set(selftest) == {t.name for t in catalogue if t.cpu_spec and t.simulator("qemu")}
    for target, sim in selftest.items():
        assert sim == catalogue.target(target).simulator("qemu").name  # type: ignore[union-attr]
    tiny = {(cell.model, cell.target) for cell in cells if cell.lane == "mlperf-tiny"}
    assert {model for model, _ in tiny} == MLPERF_TINY
    backends = {catalogue.target(target).cpu_spec.cmsis_nn  # type: ignore[union-attr]
                for _, target in tiny}
    assert backends == {"scalar", "dsp", "mve"}
    assert {dict(cell.options).get("isa") for cell in cells if cell.lane == "m55-dsp"} == {"dsp"}


def test_a_lane_may_name_one_board_s_simulator(tmp_path: Path) -> None:
    cells = [cell for cell in expand(load_matrix(MATRIX), load_catalogue())
             if cell.lane == "an524"]
    assert {(c.target, c.sim, c.sim_kind) for c in cells} == {
        ("cortex-m33", "qemu-mps3-an524", "qemu")}
    assert {c.key for c in cells} == {"convnet@cortex-m33/an524",
                                      "deep_autoencoder@cortex-m33/an524"}


def test_a_board_the_target_cannot_run_on_is_refused_naming_its_boards(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text("[[lanes]]\nmodels=['add']\ntargets=['cortex-m4']\nsim='qemu-mps3-an524'\n")
    with pytest.raises(MatrixError, match="qemu-mps2-an386"):
        expand(load_matrix(path), load_catalogue())


def test_an_unknown_simulator_name_is_refused_with_the_valid_ones(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text("[[lanes]]\nmodels=['add']\ntargets=['cortex-m33']\nsim='qemu-mps9'\n")
    with pytest.raises(MatrixError, match="qemu-mps3-an524"):
        load_matrix(path)
