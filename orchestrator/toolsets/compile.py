"""Compile under a toolset: in this process for the default toolset (when this environment
holds its pins), else in the toolset's environment through its worker (a subprocess with a
typed request and result), so this process never imports a second executorch."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orchestrator
from orchestrator.aot.key import ACTIVE_TOOLSET_ENV
from orchestrator.aot.products import Product, load_product
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options.compile import CompileChoices
from orchestrator.toolsets.catalogue import Toolset
from orchestrator.toolsets.environment import installed_toolset, runs_in_process
from orchestrator.toolsets.protocol import (
    WorkerJob,
    WorkerOutcome,
    WorkerRequest,
    WorkerResult,
)

PATH_CHOICES = ("inputs", "calibration", "vela_config")


@dataclass(frozen=True)
class ToolsetJob:
    """One model for several targets with one set of choices."""

    model: str
    targets: tuple[str, ...]
    choices: CompileChoices


@dataclass(frozen=True)
class ToolsetCompile:
    """One target's compile under one toolset: the product, or the one-line error."""

    toolset: Toolset
    target: str
    product: Product | None = None
    error: OrchestratorError | None = None


def _absolute(choices: CompileChoices) -> dict[str, object]:
    given = choices.given()
    for name in PATH_CHOICES:
        if isinstance(given.get(name), str):
            given[name] = str(Path(str(given[name])).resolve())
    return {name: list(value) if isinstance(value, tuple) else value
            for name, value in given.items()}


def _model_argument(model: str) -> str:
    return str(Path(model).resolve()) if Path(model).is_file() else model


def _choices(given: dict[str, Any]) -> CompileChoices:
    """CompileChoices from their JSON form (lists back to tuples)."""
    values: dict[str, Any] = {name: tuple(value) if isinstance(value, list) else value
                              for name, value in given.items()}
    return CompileChoices(**values)


def _compile_target(job: int, model: str, target: str, choices: CompileChoices,
                    scratch_root: str) -> WorkerOutcome:
    from orchestrator.aot.api import compile_model

    try:
        product = compile_model(model, target, choices, scratch_root=scratch_root)
    except OrchestratorError as error:
        return WorkerOutcome(job, target, cause=error.cause, next_step=error.next_step)
    return WorkerOutcome(job, target, product=str(product.directory))


def compile_here(jobs: Sequence[WorkerJob], scratch_root: str) -> tuple[WorkerOutcome, ...]:
    """Every job's targets compiled in this process, in order (the worker's loop, and the
    tool's own for a toolset it holds)."""
    return tuple(_compile_target(index, job.model, target, _choices(job.choices), scratch_root)
                 for index, job in enumerate(jobs) for target in job.targets)


def _worker_environment(toolset: Toolset) -> dict[str, str]:
    """This tool's code first on the worker's path (the same code in both environments), and
    the toolset it compiles under (recorded in each product, its pins checked)."""
    package_parent = str(Path(orchestrator.__file__).resolve().parents[1])
    existing = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join(
        [package_parent, existing] if existing else [package_parent]),
        ACTIVE_TOOLSET_ENV: json.dumps({"name": toolset.name, "packages": toolset.versions})}


def _in_worker(python: Path, request: WorkerRequest, toolset: Toolset) -> WorkerResult:
    with tempfile.TemporaryDirectory(prefix="toolset-worker-") as folder:
        request_path, result_path = Path(folder) / "request.json", Path(folder) / "result.json"
        request_path.write_text(json.dumps(request.to_json()))
        done = subprocess.run([str(python), "-m", "orchestrator.toolsets.worker",
                               str(request_path), str(result_path)],
                              env=_worker_environment(toolset), check=False)
        if done.returncode != 0 or not result_path.is_file():
            raise OrchestratorError(
                f"the compile worker of toolset {toolset.name} exited with status "
                f"{done.returncode} and no result", f"run one of its compiles again with: "
                f"invoke compile --model {request.jobs[0].model} --target "
                f"{request.jobs[0].targets[0]} --toolset {toolset.name} (its output above "
                "says why)")
        return WorkerResult.from_json(json.loads(result_path.read_text()))


def _outcome(toolset: Toolset, outcome: WorkerOutcome) -> ToolsetCompile:
    if outcome.product is None:
        return ToolsetCompile(toolset, outcome.target, error=OrchestratorError(
            f"[{toolset.name}] {outcome.cause}", outcome.next_step))
    product = load_product(Path(outcome.product))
    if product is None:
        raise OrchestratorError(f"toolset {toolset.name}'s worker named {outcome.product}, "
                                "which holds no product", "rerun the compile")
    return ToolsetCompile(toolset, outcome.target, product=product)


def with_toolset_flags(choices: CompileChoices, toolset: Toolset) -> CompileChoices:
    """The choices with the toolset's own Vela flags after the user's."""
    if not toolset.vela_flags:
        return choices
    given = choices.vela_flags
    flags = tuple(shlex.split(given)) if isinstance(given, str) else tuple(given or ())
    return replace(choices, vela_flags=(*flags, *toolset.vela_flags))


def compile_jobs(toolset: Toolset, jobs: Sequence[ToolsetJob], where: Scratch
                 ) -> list[list[ToolsetCompile]]:
    """Every job's targets compiled under `toolset`, in one process: this one for a toolset
    this environment holds, else one worker in the toolset's environment (a toolset not
    installed is refused in one line naming the setup command)."""
    requested = tuple(WorkerJob(_model_argument(job.model), job.targets,
                                _absolute(with_toolset_flags(job.choices, toolset)))
                      for job in jobs)
    if runs_in_process(toolset):
        outcomes = compile_here(requested, str(where.root))
    else:
        installed = installed_toolset(toolset, where)
        if installed is None:
            raise OrchestratorError(f"toolset {toolset.describe()} is not installed in "
                                    f"{where.root}", f"invoke setup --toolsets {toolset.name}")
        request = WorkerRequest(requested, str(where.root), toolset.name)
        outcomes = _in_worker(installed.python, request, toolset).outcomes
    grouped: list[list[ToolsetCompile]] = [[] for _ in jobs]
    for outcome in outcomes:
        grouped[outcome.job].append(_outcome(toolset, outcome))
    return grouped


def compile_under(toolset: Toolset, model: str, targets: tuple[str, ...],
                  choices: CompileChoices, where: Scratch) -> list[ToolsetCompile]:
    """Every target's compile of `model` under `toolset`."""
    return compile_jobs(toolset, [ToolsetJob(model, targets, choices)], where)[0]


def products_under(toolset: Toolset, model: str, targets: tuple[str, ...],
                   choices: CompileChoices, where: Scratch) -> dict[str, Product]:
    """Every target's product of `model` under `toolset`, in the targets' order; the first
    target whose compile failed raises its error."""
    found = {}
    for compiled in compile_under(toolset, model, targets, choices, where):
        if compiled.error is not None:
            raise compiled.error
        assert compiled.product is not None
        found[compiled.target] = compiled.product
    return found
