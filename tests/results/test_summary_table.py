"""The compact human table and the one-line verdict."""

from __future__ import annotations

from pathlib import Path

from orchestrator.parse.result import parse_log
from orchestrator.results.summary_table import print_result, summary_rows, verdict

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"


def test_rows_for_a_pmu_run():
    rows = dict(summary_rows(parse_log(TRANSCRIPTS / "et-docs-v0.5.0-1.log")))
    assert rows["status"] == "pass (success)"
    assert rows["cycles"] == "NPU 5,920,305, CPU 6,925,114 (not timing on FVP)"
    assert rows["NPU"].startswith(
        "0.01 % of inference on NPU, ETHOSU_PMU_EXT0_RD_DATA_BEAT_RECEIVED=359,921"
    )
    assert "method_allocator 1,355,722 / 62,914,560 B" in rows["memory"]
    assert rows["outputs"] == "#0 ? 7 values (elided), printf %f: 6 decimals, no exponent"
    assert "stop" not in rows and "error stats" not in rows


def test_vela_estimate_is_shown_beside_measured_cycles():
    rows = dict(summary_rows(parse_log(TRANSCRIPTS / "lp-visualizing-ethosu-1.log")))
    assert rows["cycles"] == "Vela estimate 4,832,315"


def test_verdict_names_cause_and_next_step(capsys):
    result = parse_log(TRANSCRIPTS / "et-issue-7568-1.log")
    line = verdict(result)
    assert line.startswith("TIMEOUT (cpu_time_limit): the simulator stopped before the runner")
    assert "; next: the FVP hit its --timelimit" in line
    print_result(result)
    printed = " ".join(capsys.readouterr().out.split())
    assert "stop CPU time has been exceeded" in printed
    assert "TIMEOUT (cpu_time_limit)" in printed
