"""invoke regress end to end on replayed stages: reports, exit codes, baselines, reruns,
shards and regress-merge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from regress_replay import replay_stages

from orchestrator.commands.regress import merge_command, regress_command
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.regress import RegressMerge, RegressTask
from orchestrator.regress.report.document import LAST_POINTER


def regress(unit_matrix, tree, stages=None, **flags):
    """Run the command quietly on replay stages; return (exit code, report document)."""
    task = RegressTask(matrix=str(unit_matrix), quiet=True, jobs=flags.pop("jobs", 2), **flags)
    code = regress_command(task, stages=stages or replay_stages())
    pointer = json.loads((tree / "runs" / LAST_POINTER).read_text())
    return code, json.loads(Path(pointer["report"]).read_text())


def test_reports_are_written_and_exit_code_follows_failures(unit_matrix, tree):
    code, document = regress(unit_matrix, tree, filter="conv,mv2")
    assert code == 0 and document["verdict"] == "pass"
    run_dir = tree / "runs" / document["run_id"]
    assert {p.name for p in run_dir.iterdir()} >= {"report.json", "junit.xml", "summary.md",
                                                   "report.html", "cells", "compile"}
    assert document["counts"] == {"pass": 3, "fail": 0, "error": 0, "timeout": 0,
                                  "skipped": 1, "xfail": 0, "xpass": 0, "regressed": 0,
                                  "total": 4}
    code, document = regress(unit_matrix, tree)  # add@ethos-u85-128 has no document: error
    assert code == 1 and document["verdict"] == "fail"


def test_update_then_tighten_then_rerun_failed(unit_matrix, tree, capsys):
    baselines = tree.parent / "unit.baselines.json"
    code, first = regress(unit_matrix, tree, filter="conv,mv2", update_baselines=True)
    assert code == 0 and baselines.is_file()
    assert "+ mv2@ethos-u85-128/default: new entry (22 metrics)" in first["baseline_updates"]
    code, second = regress(unit_matrix, tree, filter="conv,mv2")
    assert code == 0
    assert {c["key"]: c["baseline"]["status"] for c in second["cells"] if c["baseline"]} == {
        "conv@cortex-m55/default": "ok", "mv2@ethos-u85-128/default": "ok",
        "mv2@ethos-u85-128/fast": "ok"}
    # Someone tightens the tolerance and edits the recorded value by 0.1 %: the cell regresses.
    book = json.loads(baselines.read_text())
    entry = book["entries"]["mv2@ethos-u85-128/default"]
    entry["metrics"]["cpu.cycles"] = 6918189
    entry["tolerances"] = {"cpu.cycles": {"rel": 0.0005, "abs": 0}}
    baselines.write_text(json.dumps(book))
    code, third = regress(unit_matrix, tree, filter="conv,mv2")
    assert code == 1
    cell = next(c for c in third["cells"] if c["key"] == "mv2@ethos-u85-128/default")
    assert cell["outcome"] == "regressed"
    assert cell["reason"] == ("metrics out of tolerance: cpu.cycles 6918189 -> 6925114 "
                              "(+0.10%, tolerance ±0.0005 rel +0 abs)")
    assert "mv2@ethos-u85-128/default" in (tree / "runs" / third["run_id"] / "junit.xml"
                                           ).read_text()
    html = (tree / "runs" / third["run_id"] / "report.html").read_text()
    assert "alt='Delta vs baseline'" in html and "tolerance ±0.0005 rel" in html
    stages = replay_stages()
    code, rerun = regress(unit_matrix, tree, stages=stages, rerun_failed=True)
    assert [c["key"] for c in rerun["cells"]] == ["mv2@ethos-u85-128/default"]
    assert stages.runs == ["mv2@ethos-u85-128/default"] and code == 1
    code, accepted = regress(unit_matrix, tree, filter="mv2", update_baselines=True)
    assert code == 0
    assert "~ mv2@ethos-u85-128/default cpu.cycles 6918189 -> 6925114" in accepted[
        "baseline_updates"]
    assert json.loads(baselines.read_text())["entries"]["mv2@ethos-u85-128/default"][
        "tolerances"] == {"cpu.cycles": {"rel": 0.0005, "abs": 0}}


def test_shards_merge_into_the_full_run(unit_matrix, tree, tmp_path):
    _, full = regress(unit_matrix, tree)
    shard_reports = []
    for index in (1, 2, 3):
        _, document = regress(unit_matrix, tree, shard=f"{index}/3")
        shard_reports.append(tree / "runs" / document["run_id"] / "report.json")
        assert document["shard"] == f"{index}/3"
    code = merge_command(RegressMerge(",".join(map(str, shard_reports)),
                                      out=str(tmp_path / "merged"), quiet=True))
    merged = json.loads((tmp_path / "merged" / "report.json").read_text())
    assert code == 1 and merged["verdict"] == full["verdict"]
    assert [(c["key"], c["outcome"]) for c in merged["cells"]] == [
        (c["key"], c["outcome"]) for c in full["cells"]]
    assert merged["counts"] == full["counts"]
    assert (tmp_path / "merged" / "junit.xml").is_file()
    with pytest.raises(OrchestratorError, match="shard\\(s\\) 2/3 missing"):
        merge_command(RegressMerge(f"{shard_reports[0]},{shard_reports[2]}", quiet=True))
    with pytest.raises(OrchestratorError, match="mix different --shard splits"):
        merge_command(RegressMerge(f"{shard_reports[0]},{tree / 'runs' / full['run_id']}",
                                   quiet=True))
    with pytest.raises(OrchestratorError, match="is in two reports"):
        full_report = tree / "runs" / full["run_id"]
        merge_command(RegressMerge(f"{full_report},{full_report}", quiet=True))


def test_user_errors_are_one_line(unit_matrix, tree, tmp_path):
    with pytest.raises(OrchestratorError, match="no previous regression report"):
        regress_command(RegressTask(str(unit_matrix), rerun_failed=True, quiet=True),
                        stages=replay_stages())
    with pytest.raises(OrchestratorError, match="matches --filter 'zzz'"):
        regress_command(RegressTask(str(unit_matrix), filter="zzz", quiet=True),
                        stages=replay_stages())
    with pytest.raises(OrchestratorError, match="--require renode is not a simulator kind"):
        regress_command(RegressTask(str(unit_matrix), require="renode", quiet=True),
                        stages=replay_stages())
    with pytest.raises(OrchestratorError, match="no regression report"):
        merge_command(RegressMerge(str(tmp_path / "nothing.json"), quiet=True))


def test_rerun_failed_refuses_another_matrixs_report(unit_matrix, tree, tmp_path):
    regress(unit_matrix, tree, filter="conv")
    other = tmp_path / "other.toml"
    other.write_text(unit_matrix.read_text().replace('name = "unit"', 'name = "other"'))
    with pytest.raises(OrchestratorError, match="is of matrix 'unit', not 'other'"):
        regress_command(RegressTask(str(other), rerun_failed=True, quiet=True),
                        stages=replay_stages())


def test_step_summary_is_appended_for_github(unit_matrix, tree, tmp_path, monkeypatch):
    summary = tmp_path / "step.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    regress(unit_matrix, tree, filter="conv")
    assert summary.read_text().startswith("## Regression `unit`: ✅ PASS")
