"""A real ETDump from our runner (add on the functional Ethos-U55 model under QEMU, see
tests/fixtures/etdump/README.md) read by ExecuTorch's Inspector into the per-operator table:
rows plus runtime overhead add up to Method::execute, the delegate carries Vela's estimate, the
CSV and the Chrome trace say the same; `invoke parse` reads upstream's --etdump block format
into the same table."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from orchestrator.parse.result import parse_log
from orchestrator.profile.events import read_events
from orchestrator.profile.export import chrome_trace, profile_csv
from orchestrator.profile.sources import npu_note, tick_source
from orchestrator.profile.table import build_profile
from orchestrator.results import validation_errors

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "etdump"
ETDUMP = FIXTURES / "add-ethos-u55-128-qemu.etdump"
VELA = json.loads((FIXTURES / "add-ethos-u55-128-vela-partitions.json").read_text())
TOSA = (FIXTURES / "add-ethos-u55-128-partition0.tosa").read_bytes()


@pytest.fixture(scope="module")
def events():
    return read_events(ETDUMP.read_bytes())


@pytest.fixture(scope="module")
def profile(events):
    return build_profile(events, tick_source("systick"), vela_partitions=VELA, tosa=[TOSA],
                         npu_note=npu_note("npu-model"))


def test_inspector_reads_the_runner_etdump(events):
    names = [event.name for event in events]
    assert names.count("Method::execute") == 1
    assert "DELEGATE_CALL" in names and names.count("OPERATOR_CALL") == 3
    assert "+EthosUBackend::execute()NPU" in names


def test_rows_and_overhead_add_up_to_the_execute_total(profile, events):
    execute = next(e for e in events if e.name == "Method::execute")
    assert profile.total == execute.duration > 0 and profile.inferences == 1
    assert sum(row.total for row in profile.operators) + profile.runtime_overhead \
        == profile.total
    assert profile.runtime_overhead >= 0
    assert abs(sum(row.share_percent for row in profile.operators)
               + 100 * profile.runtime_overhead / profile.total - 100) < 0.05


def test_each_row_names_operator_executor_and_counts(profile):
    rows = {row.operator: row for row in profile.operators}
    assert set(rows) == {"EthosUBackend partition 0", "quantize_per_tensor.out",
                         "dequantize_per_tensor.out"}
    assert rows["quantize_per_tensor.out"].calls == 2
    assert rows["quantize_per_tensor.out"].executor == "CPU kernel"
    delegate = rows["EthosUBackend partition 0"]
    assert delegate.executor == "delegate EthosUBackend" and delegate.calls == 1
    assert delegate.per_call == delegate.total


def test_delegate_row_carries_vela_estimate_beside_it(profile):
    delegate = profile.operators[0]
    assert delegate.vela_cycles == VELA[0]["npu_cycles"]
    (operation,) = delegate.vela_operations
    assert operation["estimated_cycles"] == VELA[0]["operators"][0]["op_cycles"]
    assert operation["name"] == "tosa_rescale_default_2"
    # Vela's one Add implements the input rescales, the add and the output rescale
    assert operation["tosa_operators"] == ["RESCALE", "RESCALE", "ADD", "RESCALE"]
    assert "not NPU timing" in (profile.npu_note or "")


def test_qemu_ticks_are_labelled_not_timing(profile):
    assert profile.unit == "ticks" and profile.timing is False
    assert "not timing" in profile.note
    assert tick_source("pmu_ccntr").timing is True
    assert tick_source("nonsense").timing is False


def test_csv_totals_add_up(profile):
    rows = list(csv.DictReader(io.StringIO(profile_csv(profile))))
    assert sum(int(row["total"]) for row in rows) == profile.total
    assert {row["timing"] for row in rows} == {"no (not timing)"}


def test_chrome_trace_is_trace_event_format(profile, events):
    trace = json.loads(json.dumps(chrome_trace(events, profile)))
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(events)
    for event in complete:
        assert isinstance(event["name"], str) and event["name"]
        assert isinstance(event["ts"], int) and isinstance(event["dur"], int)
        assert event["dur"] >= 0 and isinstance(event["pid"], int)
        assert isinstance(event["tid"], int)
    metadata = [e for e in trace["traceEvents"] if e["ph"] == "M"]
    assert metadata and metadata[0]["name"] == "process_name"


def test_parse_reads_upstream_block_format_into_the_same_table(tmp_path, profile):
    log = tmp_path / "run.log"
    log.write_text((FIXTURES / "upstream-block-format.log").read_text())
    result = parse_log(log, tmp_path / "out")
    assert result.profile is not None and result.profile.source == "cycles"
    assert [(r.operator, r.calls, r.total) for r in result.profile.operators] == \
        [(r.operator, r.calls, r.total) for r in profile.operators]
    assert Path(result.artifacts["profile_csv"]).is_file()
    assert Path(result.artifacts["profile_trace"]).is_file()
    assert not validation_errors(result.to_dict())


def test_a_damaged_etdump_is_a_reason_not_a_crash(tmp_path):
    log = tmp_path / "run.log"
    text = (FIXTURES / "upstream-block-format.log").read_text()
    log.write_text(text.replace('echo "', 'echo "AAAA', 1))
    result = parse_log(log, tmp_path / "out")
    assert result.profile is None
    assert "Inspector could not read the ETDump" in result.classification.details["profile"]


def test_regress_html_shows_a_cell_profile(profile):
    from orchestrator.regress.report.html import report_html
    from orchestrator.results import RunResult
    from orchestrator.results.model import Classification, Kind, Status

    result = RunResult(Status.PASS, "ok", Classification(Kind.SUCCESS, "ok", ""))
    result.profile = profile
    from orchestrator.regress.report.records import CellRecord, MatrixRef, RegressDocument
    from orchestrator.regress.verdict.outcome import Outcome

    cell = CellRecord("add@ethos-u55-128/profile", "add", "add", "ethos-u55-128", "profile", {},
                      "run", "qemu", "qemu", "qemu", 60, "pass", "", None, None, 1,
                      Outcome.PASS, "ok", "runs/x", result=result.to_dict())
    document = RegressDocument("R", MatrixRef("m", "m.toml"), [cell], counts={"pass": 1})
    text = report_html(document, plots=[])
    assert "Per-operator profiles" in text and "EthosUBackend partition 0" in text
    assert "not timing" in text and "ExecuTorch runtime (between operators)" in text
