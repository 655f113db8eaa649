"""Atomic JSON writes: complete file or the old one, readable permissions, no temp left."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from orchestrator.foundation.jsonfile import write_json_atomic


def test_writes_sorted_json_with_umask_permissions(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.json"
    old = os.umask(0o022)
    try:
        write_json_atomic(target, {"b": 1, "a": [1, 2]})
    finally:
        os.umask(old)
    assert json.loads(target.read_text()) == {"a": [1, 2], "b": 1}
    assert target.read_text().index('"a"') < target.read_text().index('"b"')
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert [p.name for p in target.parent.iterdir()] == ["report.json"]


def test_unserialisable_document_keeps_the_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "lock.json"
    write_json_atomic(target, {"kept": True})
    with pytest.raises(TypeError):
        write_json_atomic(target, {"bad": object()})
    assert json.loads(target.read_text()) == {"kept": True}
    assert [p.name for p in tmp_path.iterdir()] == ["lock.json"]


def test_a_result_is_replaced_whole_never_rewritten_in_place(tmp_path: Path) -> None:
    """result.json (invoke run, each regress cell, an interrupted run) has one writer: a
    reader holding the old file keeps reading the old result while the new one lands."""
    from orchestrator.results import Kind, RunResult, Status, TargetInfo
    from orchestrator.results.record import RESULT, write_result

    def result(status: Status) -> RunResult:
        from orchestrator.parse.classify import make_classification

        return RunResult(status=status, reason=status.value, run_id="r1",
                         classification=make_classification(Kind.INTERRUPTED, "x", []),
                         target=TargetInfo(name="cortex-m55", simulator="qemu"))

    first = write_result(tmp_path, result(Status.INTERRUPTED))
    assert first == tmp_path / RESULT
    with first.open() as reader:
        write_result(tmp_path, result(Status.PASS))
        assert json.loads(reader.read())["status"] == "interrupted"
    document = json.loads(first.read_text())
    assert document["status"] == "pass" and document["artifacts"]["result"] == str(first)
    assert [p.name for p in tmp_path.iterdir()] == [RESULT]
