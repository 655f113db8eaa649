"""A result file written before schema 1.7.0 (which gave the NPU model one name) reads with
today's names. old_results/result-1.6.0-npu-model.json is a real run's result.json, copied
unchanged: `invoke run --target ethos-u55-128 --model convnet --sim qemu` on the NPU model,
schema 1.6.0 (scratch/runs/20261128T195024Z-b4a94d7b, issue 44's worktree, 2026-11-28)."""

from __future__ import annotations

import json
from pathlib import Path

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
