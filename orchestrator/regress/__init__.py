"""Regression jobs: matrix files, the engine over narrow stage interfaces, baselines, reports.

Public API (importing it never imports torch or matplotlib):
    load_matrix, expand          matrix TOML -> cells
    execute, EngineOptions       run cells through a Stages implementation
    Stages, CompileJob, CompileOutcome, FirmwareConfig, FirmwareOutcome
    load_baselines, Baselines    two-sided metric baselines
"""

from __future__ import annotations

from orchestrator.regress.engine import EngineOptions, EngineRun, execute
from orchestrator.regress.lanes.stages import (
    CompileJob,
    CompileOutcome,
    FirmwareConfig,
    FirmwareOutcome,
    Stages,
)
from orchestrator.regress.plan.cells import Cell, Expect, Mode
from orchestrator.regress.plan.matrix import Matrix, MatrixError, expand, load_matrix
from orchestrator.regress.verdict.baseline import Baselines, load_baselines
from orchestrator.regress.verdict.outcome import Outcome

__all__ = [
    "Baselines",
    "Cell",
    "CompileOutcome",
    "CompileJob",
    "EngineOptions",
    "EngineRun",
    "Expect",
    "FirmwareConfig",
    "FirmwareOutcome",
    "Matrix",
    "MatrixError",
    "Mode",
    "Outcome",
    "Stages",
    "execute",
    "expand",
    "load_baselines",
    "load_matrix",
]
