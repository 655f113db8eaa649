"""Baselines: two-sided tolerances, version changes beside moved metrics, atomic updates."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from regress_documents import mv2_u85_128, vela_mv2_u85_128

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.verdict.baseline import (
    BaselineEntry,
    Baselines,
    Tolerance,
    load_baselines,
    tolerance_for,
)
from orchestrator.regress.verdict.metrics import extract_metrics, extract_versions

KEY = "mv2@ethos-u85-128/default"


def recorded(tmp_path):
    """A baselines file holding the real MV2/U85 run."""
    result = mv2_u85_128()
    book = Baselines(tmp_path / "b.json")
    book.update(KEY, {"model": "mv2", "target": "ethos-u85-128", "options": "default"},
                extract_metrics(result), extract_versions(result), "run-1")
    book.save()
    return load_baselines(tmp_path / "b.json"), result


def test_metrics_flatten_every_tracked_number():
    result = mv2_u85_128()
    result.vela = vela_mv2_u85_128()
    metrics = extract_metrics(result)
    assert metrics["npu.cycles"] == 5920305
    assert metrics["cpu.cycles"] == 6925114
    assert metrics["cpu.npu_wait_cycles"] == 729
    assert metrics["pmu.ETHOSU_PMU_NPU_IDLE"] == 503
    assert metrics["memory.pte_size"] == 4425968
    assert metrics["memory.pool.method_allocator.used"] == 1355722
    assert metrics["vela.npu_cycles"] == 4832315 and metrics["vela.sram_used_kib"] == 5178.77
    assert extract_versions(result) == {"tool": result.versions.tool}  # a log names none


def test_non_finite_numbers_are_not_metrics():
    result = mv2_u85_128()
    result.cpu.total = float("nan")
    result.npu.cycles = float("inf")
    metrics = extract_metrics(result)
    assert "cpu.cycles" not in metrics and "npu.cycles" not in metrics
    assert metrics["cpu.npu_wait_cycles"] == 729


def test_same_numbers_pass_and_both_directions_fail(tmp_path):
    book, result = recorded(tmp_path)
    metrics, versions = extract_metrics(result), extract_versions(result)
    assert book.check(KEY, metrics, versions, {}).status == "ok"
    for factor in (1.05, 0.95):  # default tolerance for cycles is ±3 %: both directions fail
        moved = dict(metrics, **{"npu.cycles": round(metrics["npu.cycles"] * factor)})
        check = book.check(KEY, moved, versions, {})
        assert check.status == "regressed"
        assert [d.metric for d in check.regressions] == ["npu.cycles"]
        assert f"{factor - 1:+.2%}" in check.summary()


def test_tightened_tolerance_names_metric_and_amount(tmp_path):
    book, result = recorded(tmp_path)
    metrics = dict(extract_metrics(result), **{"cpu.cycles": 6925114 + 700})  # +0.01 %
    versions = extract_versions(result)
    assert book.check(KEY, metrics, versions, {}).status == "ok"  # inside the default 3 %
    book.entries[KEY] = replace(book.entries[KEY],
                                tolerances={"cpu.cycles": {"rel": 0.0, "abs": 100}})
    check = book.check(KEY, metrics, versions, {})
    assert check.status == "regressed"
    assert check.summary() == ("cpu.cycles 6925114 -> 6925814 (+0.01%, tolerance ±0 rel "
                               "+100 abs)")


def test_version_change_is_reported_beside_moved_metrics(tmp_path):
    book, result = recorded(tmp_path)
    metrics = dict(extract_metrics(result), **{"memory.pte_size": 4425969})
    versions = dict(extract_versions(result), vela="5.1.0")
    check = book.check(KEY, metrics, versions, {})
    assert check.status == "regressed"  # memory tolerance is exact by default
    assert "memory.pte_size 4425968 -> 4425969" in check.summary()
    assert "[versions changed: vela None -> 5.1.0]" in check.summary()
    quiet = book.check(KEY, extract_metrics(result), versions, {})
    assert quiet.status == "ok" and "versions changed" not in quiet.summary()


def test_vanished_metric_regresses_and_new_metric_does_not(tmp_path):
    book, result = recorded(tmp_path)
    metrics = extract_metrics(result)
    del metrics["npu.cycles"]
    metrics["error.max_abs"] = 0.0
    check = book.check(KEY, metrics, extract_versions(result), {})
    assert [d.metric for d in check.regressions] == ["npu.cycles"]
    assert "npu.cycles 5920305 -> missing" in check.summary()


def test_no_entry_is_not_a_failure(tmp_path):
    book, result = recorded(tmp_path)
    check = book.check("other@cortex-m55/default", extract_metrics(result), {}, {})
    assert check.status == "no-baseline" and "--update-baselines" in check.summary()


def test_update_keeps_tolerances_and_reports_the_diff(tmp_path):
    book, result = recorded(tmp_path)
    book.entries[KEY] = replace(book.entries[KEY],
                                tolerances={"npu.cycles": {"rel": 0.1, "abs": 0}})
    metrics = dict(extract_metrics(result), **{"npu.cycles": 6000000, "error.max_abs": 0.5})
    lines = book.update(KEY, {"model": "mv2", "target": "ethos-u85-128", "options": "default"},
                        metrics, {}, "run-2")
    assert lines == [f"+ {KEY} error.max_abs = 0.5", f"~ {KEY} npu.cycles 5920305 -> 6000000"]
    book.save()
    again = json.loads((tmp_path / "b.json").read_text())
    assert again["entries"][KEY]["tolerances"] == {"npu.cycles": {"rel": 0.1, "abs": 0}}
    assert again["entries"][KEY]["run_id"] == "run-2"


def test_tolerance_lookup_prefers_exact_then_longest_glob():
    patterns = {"*": {"rel": 0.03, "abs": 0}, "pmu.*": {"rel": 0.1, "abs": 0},
                "pmu.ETHOSU_PMU_NPU_IDLE": {"rel": 0.5, "abs": 5}}
    assert tolerance_for("pmu.ETHOSU_PMU_NPU_IDLE", patterns) == Tolerance(0.5, 5)
    assert tolerance_for("pmu.counter0", patterns) == Tolerance(0.1, 0)
    assert tolerance_for("cpu.cycles", patterns) == Tolerance(0.03, 0)
    assert tolerance_for("cpu.cycles", {}) == Tolerance(0, 0)


def test_bad_baselines_file_is_one_line(tmp_path):
    path = tmp_path / "b.json"
    path.write_text("{nope")
    with pytest.raises(OrchestratorError, match="not valid JSON"):
        load_baselines(path)
    path.write_text('{"schema": 9}')
    with pytest.raises(OrchestratorError, match="--update-baselines"):
        load_baselines(path)
    assert load_baselines(tmp_path / "absent.json").entries == {}


def test_a_run_under_another_toolset_is_not_compared_metric_by_metric(tmp_path):
    result = mv2_u85_128()
    versions = {**extract_versions(result), "executorch": "1.4.1", "vela": "5.1.0",
                "extra.tosa-tools": "2026.5.0"}
    book = Baselines(tmp_path / "b.json")
    book.update(KEY, {"model": "mv2", "target": "ethos-u85-128", "options": "default"},
                extract_metrics(result), versions, "run-1")
    assert book.entries[KEY].toolset == {"executorch": "1.4.1", "vela": "5.1.0",
                                            "extra.tosa-tools": "2026.5.0"}
    moved = dict(extract_metrics(result), **{"npu.cycles": 1})
    check = book.check(KEY, moved, dict(versions, executorch="1.5.1", vela="5.2.0"), {})
    assert check.status == "toolset-changed" and check.regressions == []
    assert check.summary() == ("toolset changed (executorch 1.4.1 -> 1.5.1, vela 5.1.0 -> "
                               "5.2.0): metrics not compared; record this toolset's with "
                               "--update-baselines")
    assert book.check(KEY, moved, versions, {}).status == "regressed"


EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "regress" / "qemu.baselines.json"


def test_a_file_reads_into_typed_entries_and_writes_back_byte_for_byte(tmp_path):
    """The shipped baselines (written before toolsets were recorded: no toolset key) read into
    BaselineEntry records and save unchanged, byte for byte."""
    path = tmp_path / "qemu.baselines.json"
    shutil.copy(EXAMPLE, path)
    book = load_baselines(path)
    entry = book.entries["add@cortex-m55/default"]
    assert isinstance(entry, BaselineEntry)
    assert (entry.model, entry.target, entry.options) == ("add", "cortex-m55", "default")
    assert entry.metrics["cpu.cycles"] == 224 and entry.toolset is None
    book.save()
    assert path.read_bytes() == EXAMPLE.read_bytes()


def test_an_updated_entry_writes_the_format_it_always_had(tmp_path):
    book, _ = recorded(tmp_path)
    document = json.loads((tmp_path / "b.json").read_text())
    assert document["schema"] == 1
    assert sorted(document["entries"][KEY]) == ["metrics", "model", "options", "run_id",
                                                 "target", "toolset", "versions"]
    book.save()
    assert json.loads((tmp_path / "b.json").read_text()) == document


@pytest.mark.parametrize("entry", [{"metrics": {}}, "text", {"model": "m", "target": "t",
                         "options": "o", "metrics": {}, "versions": {}, "run_id": "r",
                         "tolerence": {}}])
def test_a_malformed_entry_is_one_sentence_naming_it(tmp_path, entry):
    path = tmp_path / "b.json"
    path.write_text(json.dumps({"schema": 1, "entries": {KEY: entry}}))
    with pytest.raises(OrchestratorError, match=f"entry '{KEY}' holds .*update-baselines"):
        load_baselines(path)
