"""One sample session: every input set of a data set through one runner boot. The host
writes the input sets to the samples file the runner reads through semihosting (the same on
QEMU and the FVPs), the runner closes each input set with a `sample` record, so a session
that dies keeps every sample it finished."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.firmware_run import run_firmware
from orchestrator.protocol.records import Sample
from orchestrator.protocol.stream import parse_text
from orchestrator.results import RunResult, Versions
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import SAMPLES_FILE, InputTensor, pack_samples
from orchestrator.runner.failure_causes import check_nonce, explain_exit
from orchestrator.runner.firmware import RunnerBuild, RunnerOptions
from orchestrator.runner.model_run import place_areas
from orchestrator.sim.limits import run_limits
from orchestrator.sim.plan import RunPlan
from orchestrator.sim.session import TRANSCRIPT, interrupted_result

if TYPE_CHECKING:
    from orchestrator.aot.products import Product


@dataclass(frozen=True)
class SessionPlan:
    """Where and how long: the run directory, its id and the time limits."""

    run_dir: Path
    run_id: str
    deadline_s: float | None
    idle_s: float | None
    per_sample_s: float
    rerun: str


@dataclass(frozen=True)
class Session:
    """What one session returned: the samples it finished and the run's own result."""

    samples: list[Sample]
    result: RunResult
    seconds: float


def device_inputs(arrays: Any, orders: list[tuple[int, ...]]) -> list[InputTensor]:
    """An input set's arrays as the runner takes them: raw little-endian bytes in each
    input's dim order (the compiled program's)."""
    from orchestrator.aot.tensors import stored_bytes

    return [InputTensor(array.dtype.name, tuple(array.shape), stored_bytes(array, order))
            for array, order in zip(arrays, orders, strict=True)]


def session_limits(run_plan: RunPlan, plan: SessionPlan, samples: int) -> RunPlan:
    """The run plan with the session's time limits: --timeout, else the simulator's run
    limit plus --per-sample for each input set."""
    simulator = run_plan.simulator
    deadline = plan.deadline_s or run_limits(simulator).deadline_s + plan.per_sample_s * samples
    return replace(run_plan, limits=run_limits(simulator, deadline, plan.idle_s))


def interrupted_session(plan: SessionPlan, run_plan: RunPlan, model: str, target: str,
                        seconds: float) -> Session:
    """What a session stopped by the user (SIGINT/SIGTERM) leaves: the samples its
    transcript closed before the simulator was stopped, and an interrupted result."""
    transcript = plan.run_dir / TRANSCRIPT
    text = transcript.read_text(errors="replace") if transcript.is_file() else ""
    result = interrupted_result(plan.run_id, plan.run_dir, target, run_plan.simulator.name,
                                model)
    return Session(parse_text(text).samples, result, seconds)


def run_session(plan: SessionPlan, run_plan: RunPlan, product: Product, build: RunnerBuild,
                options: RunnerOptions, input_sets: list[list[InputTensor]],
                first: int = 0) -> Session:
    """Boot once, run every input set, parse; the finished samples in order."""
    started = utc_now()
    nonce = secrets.randbits(32)
    area, samples_file, stride = pack_samples(input_sets, nonce, first)
    data = place_areas(plan.run_dir, product, build, options, area, plan.rerun,
                       input_bytes=max(stride, len(area)))
    (plan.run_dir / SAMPLES_FILE).write_bytes(samples_file)
    versions = product.versions.filled_from(Versions(runtime_commit=build.runtime_commit))
    run = run_firmware(session_limits(run_plan, plan, len(input_sets)), build.firmware,
                       plan.run_dir, plan.run_id, started_at=started, data=data,
                       versions=versions)
    result = check_nonce(run.result, run.simulation.stream, nonce)
    result = explain_exit(result, run.simulation.stream, str(product.manifest["model"]["name"]))
    result.artifacts["samples"] = str(plan.run_dir / SAMPLES_FILE)
    return Session(run.simulation.stream.samples, result, run.simulation.outcome.seconds)
