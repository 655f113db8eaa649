"""Stages for engine tests: real result documents replayed per cell, every call recorded.

The documents carry numbers from real runs (see fixtures/SOURCES.md); the real stages are
exercised by test_qemu_lane.py.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from pathlib import Path

from regress_documents import (
    add_u55_128,
    add_u85_128,
    conv_m55,
    failed,
    mv2_u85_128,
    vela_mv2_u85_128,
)

from orchestrator.regress.lanes.stages import (
    CompileJob,
    CompileOutcome,
    FirmwareConfig,
    FirmwareOutcome,
)
from orchestrator.regress.plan.cells import Cell
from orchestrator.results import RunResult, VelaEstimate, Versions

UNIT_MATRIX = """
schema = 1
name = "unit"
description = "engine tests: CPU cells, NPU cells on the FVP, compile-only NPU cells"

[options]
fast = { fast = true }

[tolerances]
"cpu.cycles" = { rel = 0.01, abs = 0 }

[[lanes]]
name = "cpu"
models = ["conv", "add"]
targets = ["cortex-m55"]
sim = "qemu"

[[lanes]]
name = "npu"
mode = "run"
models = ["mv2", "add"]
targets = ["ethos-u85-128", "ethos-u55-128"]
sim = "fvp"

[[lanes]]
name = "npu-compile"
mode = "compile"
models = ["mv2"]
targets = ["ethos-u85-128"]
options = ["fast"]

[[expect]]
models = ["add"]
targets = ["cortex-m55"]
status = "xfail"
reason = "allocation too small (known)"

[[expect]]
models = ["mv2"]
targets = ["ethos-u55-*"]
status = "skip"
reason = "mv2 is too big for U55 SRAM in this matrix"
"""



@dataclass
class ReplayStages:
    """Answers the Stages protocol from recorded documents."""

    results: dict[str, RunResult]
    vela: dict[str, VelaEstimate] = field(default_factory=dict)
    missing_sims: dict[str, str] = field(default_factory=dict)
    failing_compiles: dict[str, str] = field(default_factory=dict)
    failing_builds: dict[str, str] = field(default_factory=dict)
    builds: list[str] = field(default_factory=list)
    batches: list[list[CompileJob]] = field(default_factory=list)
    runs: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def unavailable(self, cell: Cell) -> str | None:
        return self.missing_sims.get(cell.sim_kind or "")

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        app = cell.model if cell.mode.value == "app" else "runner"
        return FirmwareConfig(f"{cell.target}-{app}", cell.target, app)

    def build_firmware(self, config: FirmwareConfig) -> FirmwareOutcome:
        self.builds.append(config.key)
        reason = self.failing_builds.get(config.key)
        if reason:
            return FirmwareOutcome(config, False, reason, log=f"/logs/{config.key}.log")
        return FirmwareOutcome(config, True, product=Path(f"/elf/{config.key}.elf"))

    def compile_batch(self, requests: list[CompileJob], log_dir: Path
                      ) -> dict[CompileJob, CompileOutcome]:
        self.batches.append(list(requests))
        outcomes = {}
        for request in requests:
            name = f"{request.model}@{request.target}"
            reason = self.failing_compiles.get(name)
            outcomes[request] = (
                CompileOutcome(False, reason, log=str(log_dir / "batch.log")) if reason else
                CompileOutcome(True, product=name, vela=copy.deepcopy(self.vela.get(name)),
                               versions=Versions(executorch="1.4.1", vela="5.1.0"),
                               seconds=0.5))
        return outcomes

    def run_cell(self, cell: Cell, firmware: FirmwareOutcome, compiled: CompileOutcome | None,
                 out_dir: Path) -> RunResult:
        with self.lock:
            self.runs.append(cell.key)
        result = RunResult.from_dict(self.results[f"{cell.model}@{cell.target}"].to_dict())
        transcript = out_dir / "transcript.log"
        transcript.write_text(f"replayed {cell.key}\n")
        result.artifacts["transcript"] = str(transcript)
        return result


def replay_stages(**overrides) -> ReplayStages:
    """Replay stages answering for every cell of UNIT_MATRIX."""
    results = {
        "conv@cortex-m55": conv_m55(),
        "add@cortex-m55": failed("add", "cortex-m55"),
        "mv2@ethos-u85-128": mv2_u85_128(),
        "add@ethos-u55-128": add_u55_128(),
        "add@ethos-u85-128": add_u85_128(),
    }
    return ReplayStages(results=results, vela={"mv2@ethos-u85-128": vela_mv2_u85_128()},
                        **overrides)
