"""The typed report document reads report.json files written before it existed and writes them
back key for key; what is not a report is refused in one sentence."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.report.document import load_report, write_document
from orchestrator.regress.report.merge import merge_documents
from orchestrator.regress.report.records import (
    ClusterSection,
    MergedOptions,
    RegressDocument,
    WorkerRow,
)
from orchestrator.regress.verdict.outcome import Outcome, Placement

RECORDED = Path(__file__).parent / "fixtures" / "reports"


@pytest.mark.parametrize("name", ["update", "regressed", "merged"])
def test_a_recorded_report_reads_and_writes_back_key_for_key(name, tmp_path):
    path = RECORDED / f"{name}.json"
    document = load_report(path)
    assert document.to_json() == json.loads(path.read_text())
    write_document(tmp_path / "report.json", document)
    assert json.loads((tmp_path / "report.json").read_text()) == json.loads(path.read_text())


def test_the_typed_fields_say_what_the_recorded_report_says():
    regressed = load_report(RECORDED / "regressed.json")
    [cell] = [cell for cell in regressed.cells if cell.outcome is Outcome.REGRESSED]
    assert cell.baseline is not None and cell.baseline.status == "regressed"
    [delta] = cell.baseline.deltas
    assert (delta.metric, delta.baseline, delta.ok) == ("cpu.cycles", 6918189, False)
    assert isinstance(delta.baseline, int)          # an integer stays an integer
    assert regressed.failing == [cell] and regressed.verdict == "fail"
    assert regressed.toolset is not None and regressed.cluster is None
    merged = load_report(RECORDED / "merged.json")
    assert merged.options == MergedOptions(3) and merged.merged_from is not None
    assert [shard.shard for shard in merged.merged_from] == ["1/3", "2/3", "3/3"]


def test_a_cluster_section_and_placements_round_trip():
    document = load_report(RECORDED / "regressed.json")
    placement = Placement("tcp://w:1", "shared", 2, True, ["tcp://v:1", "tcp://w:1"])
    document.cells[0].cluster = placement
    document.cells[1].cluster = replace(placement, resumed=True)
    document.cluster = ClusterSection("tcp://s:8786", [WorkerRow(
        "tcp://w:1", "node", 7, "shared", "/s", "fit", None, 0, 1)], [document.cells[0].key],
        [document.cells[1].key])
    plain = document.to_json()
    assert "resumed" not in plain["cells"][0]["cluster"]
    assert plain["cells"][1]["cluster"]["resumed"] is True
    assert RegressDocument.from_json(json.loads(json.dumps(plain))) == document


def test_merging_typed_shards_keeps_the_recorded_merge():
    merged = load_report(RECORDED / "merged.json")
    by_shard = [replace(merged, run_id=source.run_id, shard=source.shard, merged_from=None,
                        cells=[cell for cell in merged.cells if cell.run_id == source.run_id])
                for source in merged.merged_from or []]
    again = merge_documents(by_shard, merged.run_id, merged.finished_at)
    assert [cell.key for cell in again.cells] == [cell.key for cell in merged.cells]
    assert again.counts == merged.counts and again.verdict == merged.verdict


@pytest.mark.parametrize("change", [{"kind": "other"}, {"schema": 2}, {"cells": [{"key": 1}]},
                                    {"unknown": 1}])
def test_what_is_not_a_schema_1_report_is_refused(change, tmp_path):
    path = tmp_path / "report.json"
    path.write_text(json.dumps({**json.loads((RECORDED / "update.json").read_text()),
                                **change}))
    with pytest.raises(OrchestratorError) as caught:
        load_report(path)
    assert caught.value.message.startswith(f"{path} is not a schema 1 regression report")
