"""A result file written before schema 1.7.0 (which gave the NPU model one name) reads with
today's names. old_results/result-1.6.0-npu-model.json is a real run's result.json, copied
unchanged: `invoke run --target ethos-u55-128 --model convnet --sim qemu` on the NPU model,
schema 1.6.0 (scratch/runs/20261128T195024Z-b4a94d7b, issue 44's worktree, 2026-11-28)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.results import RunResult, validate
from orchestrator.results.model import FVP_ETHOS_U_VERSION, NPU_MODEL_VERSION, SCHEMA_VERSION
from orchestrator.results.upgrade import (
    OLD_EXECUTOR,
    OLD_FVP_KEY,
    OLD_VERSION_KEY,
    RENAMED_IN,
    upgrade,
)
from orchestrator.targets.model import EXECUTOR_MODEL

OLD = Path(__file__).parent / "old_results" / "result-1.6.0-npu-model.json"


def test_an_old_result_file_reads_with_todays_names() -> None:
    document = json.loads(OLD.read_text())
    assert document["schema_version"] == "1.6.0"
    assert document["npu"]["executor"] == OLD_EXECUTOR
    model_version = document["versions"]["extra"][OLD_VERSION_KEY]
    result = RunResult.from_dict(document)
    assert result.npu is not None and result.npu.executor == EXECUTOR_MODEL
    assert result.versions.extra[NPU_MODEL_VERSION] == model_version
    assert (OLD_VERSION_KEY in result.versions.extra) == (OLD_VERSION_KEY ==
                                                          NPU_MODEL_VERSION)
    assert result.schema_version == "1.6.0"   # what the file was written as, kept
    validate(result.to_dict())                # and what it reads as fits today's schema


def test_the_reader_leaves_a_current_document_and_every_other_field_alone() -> None:
    assert tuple(int(p) for p in SCHEMA_VERSION.split(".")) >= RENAMED_IN
    current = {"schema_version": SCHEMA_VERSION, "npu": {"executor": OLD_EXECUTOR}}
    assert upgrade(current) is current
    document = json.loads(OLD.read_text())
    upgraded = upgrade(document)
    assert document == json.loads(OLD.read_text())   # a copy: the input is not changed
    for key in set(document) - {"npu", "versions", "classification"}:
        assert upgraded[key] == document[key]
    assert {k: v for k, v in upgraded["npu"].items() if k != "executor"} == \
        {k: v for k, v in document["npu"].items() if k != "executor"}


def test_an_old_classification_detail_is_renamed_too() -> None:
    old = {"schema_version": "1.5.0",
           "classification": {"kind": "x", "details": {"npu_executor": OLD_EXECUTOR, "a": 1}}}
    assert upgrade(old)["classification"]["details"] == {"npu_executor": EXECUTOR_MODEL, "a": 1}


def test_an_old_fvp_banner_key_reads_as_the_fvps_own() -> None:
    old = {"schema_version": "1.6.0",
           "versions": {"extra": {OLD_FVP_KEY: "rev 136b7d75 (Apr 12 2023 13:44:01)", "x": "1"}}}
    assert upgrade(old)["versions"]["extra"] == {
        FVP_ETHOS_U_VERSION: "rev 136b7d75 (Apr 12 2023 13:44:01)", "x": "1"}


def test_the_rename_is_a_major_version() -> None:
    """A renamed field breaks readers that know only the old name: the schema's major moved."""
    assert SCHEMA_VERSION.split(".")[0] == "2"
    validate({**upgrade(json.loads(OLD.read_text())), "schema_version": SCHEMA_VERSION})


def test_a_result_written_under_1_7_reads_as_written() -> None:
    """1.7.0 already wrote today's names (under a minor version): read unchanged."""
    document = upgrade(json.loads(OLD.read_text()))
    written = {**document, "schema_version": "1.7.0"}
    assert upgrade(written) is written
    result = RunResult.from_dict(written)
    assert result.schema_version == "1.7.0"
    assert result.npu is not None and result.npu.executor == EXECUTOR_MODEL


def test_a_result_of_a_newer_major_is_refused_with_the_next_step() -> None:
    newer = {**json.loads(OLD.read_text()), "schema_version": "3.0.0"}
    with pytest.raises(OrchestratorError, match=r"schema 3\.0\.0, newer than the 2\.0\.0.*next: "):
        RunResult.from_dict(newer)
