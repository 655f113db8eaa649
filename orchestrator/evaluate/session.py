"""One sample session: every input set of a data set through one runner boot. The host
writes the input sets to the samples file the runner reads through semihosting (the same on
QEMU and the FVPs), the runner closes each input set with a `sample` record, so a session
that dies keeps every sample it finished."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.protocol.records import Sample
from orchestrator.results import RunResult
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import SAMPLES_FILE, InputTensor, pack_samples
from orchestrator.runner.failure_causes import check_nonce, explain_exit, explain_fvp_stop
from orchestrator.runner.firmware import RunnerBuild, RunnerOptions
from orchestrator.runner.handler import place_areas
from orchestrator.sim import simulate
from orchestrator.sim.limits import run_limits
from orchestrator.sim.result import run_result
from orchestrator.targets import Simulator, Target

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
    fast: bool = False          # FVP: Ethos-U --fast


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


def run_session(plan: SessionPlan, target: Target, simulator: Simulator, binary: Path,
                product: Product, build: RunnerBuild, options: RunnerOptions,
                input_sets: list[list[InputTensor]], first: int = 0) -> Session:
    """Boot once, run every input set, parse; the finished samples in order."""
    started = utc_now()
    nonce = secrets.randbits(32)
    area, samples_file, stride = pack_samples(input_sets, nonce, first)
    data = place_areas(plan.run_dir, product, build, options, area, plan.rerun,
                       input_bytes=max(stride, len(area)))
    (plan.run_dir / SAMPLES_FILE).write_bytes(samples_file)
    limits = run_limits(simulator)
    deadline = plan.deadline_s or limits.deadline_s + plan.per_sample_s * len(input_sets)
    simulation = simulate(simulator, binary, build.firmware.elf, plan.run_dir, data=data,
                          deadline_s=deadline, idle_s=plan.idle_s,
                          expected_build_id=build.firmware.build_id, macs=target.macs,
                          fast=plan.fast)
    result = run_result(plan.run_id, target, build.firmware, simulation, started_at=started)
    if simulator.kind == "fvp":
        result = explain_fvp_stop(result, simulation.outcome.transcript)
    result = check_nonce(result, simulation.stream, nonce)
    result = explain_exit(result, simulation.stream, str(product.manifest["model"]["name"]))
    result.artifacts["samples"] = str(plan.run_dir / SAMPLES_FILE)
    return Session(simulation.stream.samples, result, simulation.outcome.seconds)
