"""The real stages behind the engine: firmware builds (orchestrator.firmware.build), the batch
compile (orchestrator.aot), and simulation through the run plan, each cell in the lane of its
app (orchestrator.apps.registry): the model app's (model_lane), the protocol apps' and the NPU
self-test's (app_lane)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orchestrator.aot.vela.report import vela_estimate
from orchestrator.apps.app import App, Firmware
from orchestrator.apps.registry import ARTIFACT, MODEL, app_named
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.regress.lanes.app import NpuSelftestLane, ProtocolAppLane
from orchestrator.regress.lanes.artifact import ArtifactLane
from orchestrator.regress.lanes.model import ModelLane
from orchestrator.regress.lanes.stages import (
    CompileJob,
    CompileOutcome,
    FirmwareConfig,
    FirmwareOutcome,
    Lane,
)
from orchestrator.regress.plan.cell_options import compile_choices
from orchestrator.regress.plan.cells import Cell, Mode
from orchestrator.regress.plan.lowering import library_request
from orchestrator.results import MemoryUse, RunResult
from orchestrator.runner.model_run import model_choices
from orchestrator.targets import load_catalogue
from orchestrator.toolsets.catalogue import Toolset

BATCH_LOG = "compile-batch.json"


class RealStages:
    """Stages backed by the tool's own build, compile and simulation code; under a toolset
    (`invoke regress --toolset`), its compiles run in that toolset's environment and its
    runtime lanes only where the runtime sources match the toolset's tag."""

    def __init__(self, tree: Scratch, build_jobs: int = 2, toolset: Toolset | None = None
                 ) -> None:
        self.tree = tree
        self.build_jobs = build_jobs
        self.catalogue = load_catalogue()
        self.toolset = toolset
        self.lanes: dict[Firmware, Lane] = {Firmware.RUNNER: ModelLane(),
                                            Firmware.PROTOCOL_APP: ProtocolAppLane(),
                                            Firmware.NPU_SELFTEST: NpuSelftestLane()}
        self.artifact_lane = ArtifactLane()

    def lane(self, app: App) -> Lane:
        """The lane that builds and runs `app`'s cells (an upstream ELF has none here)."""
        if app is ARTIFACT:
            return self.artifact_lane
        if app.firmware not in self.lanes:
            raise OrchestratorError(f"a regress cell cannot run the {app.name} app",
                                    "invoke run --help")
        return self.lanes[app.firmware]

    def unavailable(self, cell: Cell) -> str | None:
        """Why the cell's simulator (or the model runner) cannot be used here."""
        from orchestrator.sim.plan import simulator_binary

        if self.toolset is not None:
            from orchestrator.regress.toolset_ab import runtime_lane_note, runtime_source_tag

            note = runtime_lane_note(cell, self.toolset, runtime_source_tag(self.tree))
            if note is not None:
                return note

        try:
            simulator_binary(self.tree, self.catalogue.simulators[cell.simulator])
        except OrchestratorError as error:
            return error.message
        return self.lane(cell_app(cell)).unavailable(self.tree, cell)

    def firmware_config(self, cell: Cell) -> FirmwareConfig:
        """The app (selftest, npuselftest, ...) for app cells; the model runner for model
        cells."""
        return self.lane(cell_app(cell)).firmware_config(cell)

    def build_firmware(self, config: FirmwareConfig) -> FirmwareOutcome:
        """Configure if needed and build incrementally; `cached` when nothing was rebuilt."""
        return self.lane(app_named(config.app)).build(self.tree, config, self.build_jobs)

    def compile_batch(self, requests: list[CompileJob], log_dir: Path
                      ) -> dict[CompileJob, CompileOutcome]:
        """Every request through the compile stage's batch function, in this one process
        (under a toolset: through its environment, one worker call per model and options)."""
        from orchestrator.aot.api import compile_many

        log = log_dir / BATCH_LOG
        outcomes: dict[CompileJob, CompileOutcome] = {}
        if self.toolset is not None:
            outcomes = self._compile_under_toolset(self.toolset, requests, log)
            log.write_text(json.dumps(_batch_log(outcomes), indent=2, sort_keys=True) + "\n")
            return outcomes
        prepared = {}
        for request in requests:
            try:
                prepared[request] = library_request(request)
            except OrchestratorError as error:
                outcomes[request] = CompileOutcome(False, error.message, log=str(log))
        items = compile_many(list(prepared.values()), self.tree)
        for request, item in zip(prepared, items, strict=True):
            outcomes[request] = (_compiled(item.product) if item.ok else
                                 CompileOutcome(False, item.error or "compile failed",
                                                log=str(log)))
        log.write_text(json.dumps(_batch_log(outcomes), indent=2, sort_keys=True) + "\n")
        return outcomes

    def _compile_under_toolset(self, toolset: Toolset, requests: list[CompileJob], log: Path
                               ) -> dict[CompileJob, CompileOutcome]:
        """Every request under `toolset`, one job per model and options, in one process."""
        from orchestrator.toolsets.compile import ToolsetJob, compile_jobs

        grouped: dict[tuple[str, tuple[tuple[str, Any], ...]], list[CompileJob]] = {}
        for request in requests:
            grouped.setdefault((request.model_spec, request.options), []).append(request)
        outcomes: dict[CompileJob, CompileOutcome] = {}
        jobs = []
        for (spec, options), members in grouped.items():
            try:
                jobs.append((members, ToolsetJob(spec, tuple(job.target for job in members),
                                                 model_choices(compile_choices(dict(options))))))
            except OrchestratorError as error:
                outcomes.update({job: CompileOutcome(False, error.message, log=str(log))
                                 for job in members})
        try:
            done = compile_jobs(toolset, [job for _, job in jobs], self.tree)
        except OrchestratorError as error:
            return {**outcomes, **{member: CompileOutcome(False, error.message, log=str(log))
                                   for members, _ in jobs for member in members}}
        for (members, _), compiled in zip(jobs, done, strict=True):
            for member, entry in zip(members, compiled, strict=True):
                outcomes[member] = _compiled(entry.product) if entry.product is not None else \
                    CompileOutcome(False, entry.error.message if entry.error else
                                   "compile failed", log=str(log))
        return outcomes

    def run_cell(self, cell: Cell, firmware: FirmwareOutcome, compiled: CompileOutcome | None,
                 out_dir: Path) -> RunResult:
        """Simulate one cell into out_dir (transcript, command) and return its result."""
        if cell.mode is Mode.RUN:
            assert compiled is not None
        return self.lane(cell_app(cell)).run_cell(self.tree, cell, firmware.product,
                                                  compiled.product if compiled else None,
                                                  out_dir)

    def verify_cell(self, cell: Cell, compiled: CompileOutcome, out_dir: Path) -> RunResult:
        """`invoke verify`'s check of the compiled product on the host's NPU model."""
        from orchestrator.regress.lanes.verify import verify_cell

        return verify_cell(cell, compiled.product, out_dir)


def cell_app(cell: Cell) -> App:
    """The app a cell runs: the model app for a model cell, else the app it names."""
    if cell.mode is Mode.PTE:
        return ARTIFACT
    return MODEL if cell.mode is Mode.RUN else app_named(cell.model_spec)


def _compiled(product: Any) -> CompileOutcome:
    """A compile product as the engine sees it: Vela estimates, sizes, versions, paths."""
    from orchestrator.aot.compiler import COMPILE_LOG

    manifest = product.manifest
    program = manifest.get("program", {})
    scratch_bytes = program.get("max_vela_scratch_bytes")
    return CompileOutcome(
        ok=True,
        product=product,
        vela=vela_estimate(manifest.get("vela")),
        memory=MemoryUse(pte_size=manifest.get("pte_bytes"),
                         allocations={"vela_scratch": scratch_bytes} if scratch_bytes else {}),
        versions=product.versions,
        cached=product.cached,
        log=str(product.directory / COMPILE_LOG),
        seconds=0.0 if product.cached else float(manifest.get("compile_seconds", 0.0)),
        artifacts={"product": str(product.directory), "pte": str(product.pte)},
        lowering=_lowering_directory(product),
    )


def _lowering_directory(product: Any) -> Path | None:
    """The lowering the product is a configuration of, where it is kept."""
    from orchestrator.aot.lower.store import lowered_root

    key = (product.manifest.get("lowering") or {}).get("key")
    found = lowered_root(product.directory.parent) / key if key else None
    return found if found is not None and found.is_dir() else None


def _batch_log(outcomes: dict[CompileJob, CompileOutcome]) -> list[dict[str, Any]]:
    """What the batch did per request (the failures' one-line errors are kept here)."""
    return [{"model": r.model, "spec": r.model_spec, "target": r.target,
             "options": dict(r.options), "ok": o.ok, "cached": o.cached, "reason": o.reason,
             "product": o.artifacts.get("product")} for r, o in outcomes.items()]
