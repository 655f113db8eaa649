"""Cortex-M CPU targets as data: every CPU upstream lists, its GCC flags and CMSIS-NN
backends, its QEMU board (or the superset core that runs it, said so), ISA overrides and the
board-fit refusal before a build. No torch, no toolchain."""

from __future__ import annotations

import pytest

from orchestrator.firmware.build.config import config_for_target
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.runner.board_fit import check_board_fits
from orchestrator.runner.config import pools_for
from orchestrator.targets import load_catalogue
from orchestrator.targets.cortex_m import check_isa, cortex_m_record, ran_on, with_isa

CATALOGUE = load_catalogue()


def test_cpus_carry_upstreams_backend_table() -> None:
    allowed = {name: cpu.cmsis_nn_allowed for name, cpu in CATALOGUE.cpus.items()}
    assert allowed["cortex-m0"] == allowed["cortex-m3"] == allowed["cortex-m23"] == ("scalar",)
    assert allowed["cortex-m4"] == allowed["cortex-m33"] == ("scalar", "dsp")
    assert allowed["cortex-m55"] == allowed["cortex-m85"] == ("scalar", "dsp", "mve")
    assert {name for name, cpu in CATALOGUE.cpus.items() if cpu.float_abi == "soft"} == {
        "cortex-m0", "cortex-m0plus", "cortex-m3", "cortex-m23"}


@pytest.mark.parametrize(("cpu", "board", "ran"), [
    ("cortex-m3", "mps2-an385", None), ("cortex-m4", "mps2-an386", None),
    ("cortex-m7", "mps2-an500", None), ("cortex-m33", "mps2-an505", None),
    ("cortex-m0plus", "mps2-an385", "cortex-m0plus program (-mcpu=cortex-m0plus) ran on "
     "QEMU's Cortex-M3 (mps2-an385): same instructions, no timing of the Cortex-M0plus"),
    ("cortex-m23", "mps2-an505", "Cortex-M33"), ("cortex-m35p", "mps2-an505", "Cortex-M33"),
])
def test_each_cpu_runs_on_its_board_or_says_which_core_ran_it(cpu, board, ran) -> None:
    target = CATALOGUE.target(cpu)
    qemu = target.simulator("qemu")
    assert target.platform.name == board and qemu is not None and qemu.machine == board
    note = ran_on(target, qemu)
    assert note == ran if ran is None or ran.startswith("cortex") else ran in (note or "")
    record = cortex_m_record(target, None, qemu, ran=True)
    assert record["gcc_cpu"] == cpu and ("ran_on" in record) == (ran is not None)


def test_an_isa_override_builds_other_firmware() -> None:
    m55 = CATALOGUE.target("cortex-m55")
    assert check_isa(m55, "mve") is None and check_isa(m55, "DSP") == "dsp"
    dsp = with_isa(m55, "dsp")
    assert (dsp.platform.gcc_cpu, dsp.platform.variant) == ("cortex-m55+nomve",
                                                            "cortex-m55+nomve")
    keys = {config_for_target(t, app="selftest").key for t in (m55, dsp)}
    assert len(keys) == 2
    assert cortex_m_record(m55, "dsp")["cmsis_nn_backend"] == "DSP"
    with pytest.raises(OrchestratorError, match="cortex-m4 cannot execute CMSIS-NN's MVE"):
        check_isa(CATALOGUE.target("cortex-m4"), "mve")


def test_a_smaller_board_gets_its_own_layout_and_pools() -> None:
    m3 = CATALOGUE.target("cortex-m3")
    values = config_for_target(m3, app="selftest").definitions()
    assert (values["EOR_CPU"], values["EOR_MODEL_AREA_SIZE"]) == ("cortex-m3", "0x400000")
    assert pools_for("cpu", board=m3.platform).method_pool_size == 0x400000
    assert pools_for("cpu", board=CATALOGUE.target("cortex-m55").platform).method_pool_size \
        == 0x1000000
    m0 = config_for_target("cortex-m0", app="selftest")
    assert m0.key != config_for_target(m3, app="selftest").key and "cortex-m0" in m0.key


def _manifest(planned: int) -> dict[str, object]:
    return {"program": {"methods": {"forward": {"planned_bytes": planned}}}}


def test_a_model_too_big_for_the_board_is_refused_before_the_build() -> None:
    check_board_fits(CATALOGUE.target("cortex-m3"), _manifest(64 * 1024), 200_000, 4096)
    with pytest.raises(OrchestratorError) as raised:
        check_board_fits(CATALOGUE.target("cortex-m3"), _manifest(12 << 20), 3_500_000, 150_528)
    error = raised.value
    assert "method pool" in error.cause and "mps2-an385" in error.cause
    assert "PSRAM (16 MiB at 0x21000000)" in error.cause
    assert error.next_step is not None and "cortex-m55" in error.next_step
    assert "cortex-m3," not in error.next_step and "\n" not in error.cause


def test_the_listing_names_backend_and_the_core_that_runs_it() -> None:
    from orchestrator.targets.listing import cpu_label, target_summary

    labels = {t.name: cpu_label(target_summary(t)) for t in CATALOGUE if t.cpu_spec}
    assert labels["cortex-m4"] == "cortex-m4 (DSP)"
    assert labels["cortex-m0plus"] == "cortex-m0plus (SCALAR, runs on the board's cortex-m3)"
    assert labels["cortex-m85"] == "cortex-m85 (MVE, built as cortex-m55)"
    summary = target_summary(CATALOGUE.target("cortex-m55"))
    assert summary["cortex_m"]["cmsis_nn_allowed"] == ["scalar", "dsp", "mve"]


def test_the_run_summary_says_which_core_ran_a_fallback_cpu() -> None:
    """A cortex-m0plus program runs on QEMU's Cortex-M3: both summaries print that sentence."""
    from orchestrator.results import Classification, Kind, RunResult, Status
    from orchestrator.results.summary_table import format_result, summary_rows

    def summary_of(cpu: str) -> tuple[str, dict[str, str]]:
        target = CATALOGUE.target(cpu)
        result = RunResult(status=Status.PASS, reason="ok", classification=Classification(
            kind=Kind.SUCCESS, summary="ok", next_step="-"))
        result.target.options["cortex_m"] = cortex_m_record(
            target, None, target.simulator("qemu"), ran=True)
        return format_result(result), dict(summary_rows(result))

    shown, rows = summary_of("cortex-m0plus")
    sentence = ("cortex-m0plus program (-mcpu=cortex-m0plus) ran on QEMU's Cortex-M3 "
                "(mps2-an385): same instructions, no timing of the Cortex-M0plus")
    assert f"cpu ran  {sentence}" in shown and rows["cpu ran"] == sentence
    shown, rows = summary_of("cortex-m3")
    assert "cpu ran" not in shown and "cpu ran" not in rows
