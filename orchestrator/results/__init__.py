"""Run results: the versioned RunResult document, its JSON Schema and validation."""

from __future__ import annotations

from orchestrator.results.model import (
    FVP_CPU_CYCLES_NOTE,
    PRINTED_FLOAT_PRECISION,
    SCHEMA_VERSION,
    Classification,
    Comparison,
    CpuCycles,
    Delegation,
    Kind,
    LogInfo,
    MemoryUse,
    NpuPmu,
    OutputTensor,
    PmuCounter,
    PoolUse,
    RunResult,
    Simulation,
    Status,
    TargetInfo,
    VelaEstimate,
    Versions,
)
from orchestrator.results.schema import load_schema, validate, validation_errors

__all__ = [
    "FVP_CPU_CYCLES_NOTE",
    "PRINTED_FLOAT_PRECISION",
    "SCHEMA_VERSION",
    "Classification",
    "Comparison",
    "CpuCycles",
    "Delegation",
    "Kind",
    "LogInfo",
    "MemoryUse",
    "NpuPmu",
    "OutputTensor",
    "PmuCounter",
    "PoolUse",
    "RunResult",
    "Simulation",
    "Status",
    "TargetInfo",
    "VelaEstimate",
    "Versions",
    "load_schema",
    "validate",
    "validation_errors",
]
