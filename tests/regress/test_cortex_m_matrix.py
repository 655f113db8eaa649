"""The shipped Cortex-M matrix (examples/regress/cortex-m.toml) expands to cells on every
CPU's own QEMU board, the MLPerf Tiny four on scalar, DSP and MVE cores, and the M55's DSP
override as an option set."""

from __future__ import annotations

from pathlib import Path

from orchestrator.regress.plan.matrix import expand, load_matrix
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
