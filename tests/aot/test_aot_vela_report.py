"""Vela summary parsing on real Vela output (tests/fixtures/vela, see INDEX.md there)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.aot.vela.report import parse_operator_tables, parse_summaries, parse_vela_output

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vela"


def report(name: str) -> dict:
    return parse_vela_output((FIXTURES / name).read_text())


def test_full_u85_summary_from_learning_path() -> None:
    parsed = report("lp-visualizing-ethosu-1.log")
    (block,) = parsed["partitions"]
    assert block["network"] == "out"
    assert block["accelerator_config"] == "Ethos_U85_128"
    assert block["system_config"] == "Ethos_U85_SYS_DRAM_Mid"
    assert block["memory_mode"] == "Sram_Only"
    assert block["clock_mhz"] == 1000
    assert block["sram_used_kib"] == 5178.77
    assert (block["cpu_operators"], block["npu_operators"]) == (0, 64)
    assert block["bandwidth_mb_per_batch"]["sram"] == {
        "input": 15.49, "weight": 11.87, "output": 6.66, "total": 35.65}
    assert block["macs"] == 300836992
    assert block["npu_cycles"] == 4832315
    assert block["total_cycles"] == 4942076
    assert block["inference_time_ms"] == 4.94
    assert parsed["operators"] == []
    assert parsed["totals"]["npu_cycles"] == 4832315


def test_u55_table_and_headerless_summary_from_cmsis_report() -> None:
    parsed = report("cmsis-executorch-vela-3.log")
    (block,) = parsed["partitions"]
    assert "network" not in block   # the report removed the header line
    assert block["accelerator_config"] == "Ethos_U55_128"
    assert block["off_chip_flash_used_kib"] == 0.03
    assert block["peak_bandwidth_gb_s"] == {"sram": 3.73, "off_chip_flash": 0.47}
    assert block["off_chip_flash_access_cycles"] == 32
    assert (block["npu_cycles"], block["total_cycles"]) == (327, 328)
    rows = parsed["operators"]
    assert len(rows) == 11 and block["operators"] == rows
    assert rows[0]["original_operator"] == "Transpose" and rows[0]["name"] == "#70"
    assert rows[2] == {
        "original_operator": "Rescale", "nng_operator": "Add", "target": "NPU",
        "staging_usage": 96, "peak_pct_staging": 66.67, "op_cycles": 34,
        "network_pct_cycles": 10.37, "npu": 34, "sram_ac": 2, "dram_ac": 0, "onflash_ac": 0,
        "offflash_ac": 16, "mac_count": 0, "network_pct_mac": 100.0, "util_pct_mac": 0.0,
        "name": "tosa_transpose_default_1_int32"}
    assert sum(row["op_cycles"] for row in rows) == 32 * 6 + 34 * 2 + 33 * 2 + 2


def test_executorch_compile_output_with_upstream_flags() -> None:
    parsed = report("executorch-1.4.1-add-u55-upstream-flags.log")
    (block,) = parsed["partitions"]
    assert block["accelerator_config"] == "Ethos_U55_128"
    assert (block["npu_cycles"], block["sram_access_cycles"]) == (768, 192)
    assert parsed["has_cycle_estimate"] is True


def test_shortened_form_printed_during_executorch_compile() -> None:
    parsed = report("executorch-1.4.1-add-u85-verbose-performance.log")
    (block,) = parsed["partitions"]
    assert block["memory_mode"] == "Sram_Only"
    assert block["sram_used_kib"] == 1.0
    assert block["macs"] == 0
    assert "npu_cycles" not in block and parsed["has_cycle_estimate"] is False
    (row,) = block["operators"]
    assert (row["nng_operator"], row["op_cycles"], row["npu"]) == ("Add", 256, 256)


def test_several_partitions_are_summed_and_memory_peaks() -> None:
    one = (FIXTURES / "cmsis-executorch-vela-3.log").read_text()
    two = (FIXTURES / "executorch-1.4.1-add-u55-upstream-flags.log").read_text()
    parsed = parse_vela_output(one + "\n" + two)
    assert len(parsed["partitions"]) == 2
    assert parsed["totals"]["npu_cycles"] == 327 + 768
    assert parsed["totals"]["npu_operators"] == 12
    assert parsed["totals"]["sram_used_kib"] == 1.0


@pytest.mark.parametrize("text", ["", "no vela here\n", "Original Operator  NNG Operator\n"])
def test_text_without_vela_output_gives_empty_report(text: str) -> None:
    assert parse_summaries(text) == []
    assert parse_operator_tables(text) == []
    assert parse_vela_output(text)["totals"] == {}
