"""RunResult round-trips through JSON and matches the shipped JSON Schema."""

from __future__ import annotations

import dataclasses
import json

import pytest

from orchestrator.results import (
    FVP_CPU_CYCLES_NOTE,
    Classification,
    Comparison,
    CpuCycles,
    Kind,
    MemoryUse,
    NpuPmu,
    OutputTensor,
    PmuCounter,
    PoolUse,
    RunResult,
    Status,
    TargetInfo,
    VelaEstimate,
    Versions,
    load_schema,
    validate,
    validation_errors,
)
from orchestrator.results.model import LogInfo, Simulation


def full_result() -> RunResult:
    """A RunResult with every section filled in."""
    return RunResult(
        status=Status.PASS,
        reason="ran to completion",
        classification=Classification(
            kind=Kind.SUCCESS, summary="ok", next_step="none", evidence=["Program complete"]
        ),
        model="mv2",
        target=TargetInfo("ethos-u55-128", "fvp-corstone-300-u55", {"num_macs": 128}),
        versions=Versions(executorch="1.4.1", vela="5.1.0", simulator="FVP_Corstone_SSE-300"),
        outputs=[
            OutputTensor(0, "float32", [1, 4], [0.5, 0.25, float("nan"), 1.0], exact=True),
            OutputTensor(1, "int8", None, [1, 2], precision="printf %d", indices=[0, 9]),
        ],
        comparison=Comparison("host", passed=True, max_absolute_error=0.0, atol=0.01),
        npu=NpuPmu(5920305, [PmuCounter(0, 359921, "ETHOSU_PMU_NPU_IDLE")], inferences=1),
        cpu=CpuCycles("fvp-ccntr", FVP_CPU_CYCLES_NOTE, total=6925114, per_operator={"ethos-u": 1}),
        vela=VelaEstimate(npu_cycles=327, total_cycles=328, access_cycles={"sram": 20}),
        memory=MemoryUse(pte_size=960, pools={"method_allocator": PoolUse(10, 100)}),
        simulation=Simulation(exit_code=0, completed=True, end_of_transmission=True),
        timings_s={"simulate": 1.5},
        artifacts={"transcript": "/tmp/x.log"},
        log=LogInfo(formats=["bracket-line"], lines=3),
    )


def test_full_result_round_trips_and_validates():
    result = full_result()
    document = json.loads(result.to_json())
    validate(document)
    again = RunResult.from_json(result.to_json())
    assert again.to_dict() == result.to_dict()
    assert again.status is Status.PASS and again.outputs[0].values[2] != again.outputs[0].values[2]
    assert document["outputs"][0]["values"][2] == "nan"


def test_minimal_result_validates():
    result = RunResult(Status.SKIPPED, "no NPU on QEMU", Classification(Kind.NOT_RUN, "s", "n"))
    validate(result.to_dict())
    assert result.to_dict()["versions"]["tool"]


def test_schema_rejects_bad_documents():
    document = full_result().to_dict()
    document["status"] = "green"
    document["npu"]["counters"][0]["value"] = -1
    document["surprise"] = 1
    errors = validation_errors(document)
    assert any(error.startswith("status:") for error in errors)
    assert any("npu/counters/0/value" in error for error in errors)
    assert any("surprise" in error for error in errors)
    with pytest.raises(ValueError, match="does not match its schema"):
        validate(document)


def test_from_dict_rejects_unknown_keys():
    document = full_result().to_dict()
    document["memory"]["bogus"] = 3
    with pytest.raises(ValueError, match="MemoryUse: unknown keys"):
        RunResult.from_dict(document)


def _schema_properties(definition: dict) -> set[str]:
    return set(definition["properties"])


@pytest.mark.parametrize(
    ("cls", "pointer"),
    [
        (RunResult, None),
        (Classification, "classification"),
        (TargetInfo, "target"),
        (Versions, "versions"),
        (OutputTensor, "output"),
        (Comparison, "comparison"),
        (NpuPmu, "npu"),
        (CpuCycles, "cpu"),
        (VelaEstimate, "vela"),
        (MemoryUse, "memory"),
        (Simulation, "simulation"),
        (LogInfo, "log"),
    ],
)
def test_schema_and_dataclasses_agree(cls, pointer):
    schema = load_schema()
    definition = schema if pointer is None else schema["$defs"][pointer]
    assert _schema_properties(definition) == {f.name for f in dataclasses.fields(cls)}


def test_kind_and_status_enums_match_schema():
    schema = load_schema()
    assert schema["properties"]["status"]["enum"] == [status.value for status in Status]
    kinds = schema["$defs"]["classification"]["properties"]["kind"]["enum"]
    assert kinds == [kind.value for kind in Kind]
