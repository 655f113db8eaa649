"""One sample session: every input set of a data set through one runner boot. The host
writes the input sets to the samples file the runner reads through semihosting (the same on
QEMU and the FVPs), the runner closes each input set with a `sample` record, so a session
that dies keeps every sample it finished."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from orchestrator.firmware.run import run_firmware
from orchestrator.protocol.records import Sample
from orchestrator.protocol.stream import parse_text
from orchestrator.results import RunResult, Versions
from orchestrator.results.model import utc_now
from orchestrator.runner.areas import SAMPLES_FILE, InputTensor, pack_samples
from orchestrator.runner.failure_causes import check_nonce, explain_exit
from orchestrator.runner.model_run import ModelRun, place_areas
from orchestrator.sim.launch import TRANSCRIPT
from orchestrator.sim.limits import run_limits
from orchestrator.sim.plan import RunPlan
from orchestrator.sim.session import interrupted_result


@dataclass(frozen=True)
class SessionLimits:
    """How long a session may run: a deadline (None: the simulator's run limit plus
    `per_sample_s` per input set) and the idle watchdog (None: the simulator's)."""

    deadline_s: float | None
    idle_s: float | None
    per_sample_s: float


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


def limited(run_plan: RunPlan, limits: SessionLimits, samples: int) -> RunPlan:
    """The run plan with the session's time limits: the deadline, else the simulator's run
    limit plus `per_sample_s` for each input set."""
    simulator = run_plan.simulator
    deadline = (limits.deadline_s
                or run_limits(simulator).deadline_s + limits.per_sample_s * samples)
    return replace(run_plan, limits=run_limits(simulator, deadline, limits.idle_s))


def interrupted_session(run: ModelRun, seconds: float) -> Session:
    """What a session stopped by the user (SIGINT/SIGTERM) leaves: the samples its
    transcript closed before the simulator was stopped, and an interrupted result."""
    transcript = run.run_dir / TRANSCRIPT
    text = transcript.read_text(errors="replace") if transcript.is_file() else ""
    result = interrupted_result(run.run_id, run.run_dir, run.request.target,
                                run.plan.simulator.name, run.request.model)
    return Session(parse_text(text).samples, result, seconds)


def run_session(run: ModelRun, limits: SessionLimits, input_sets: list[list[InputTensor]],
                first: int = 0) -> Session:
    """Boot the model run's runner once, run every input set, parse; the finished samples in
    order (in the run's directory)."""
    started = utc_now()
    nonce = secrets.randbits(32)
    area, samples_file, stride = pack_samples(input_sets, nonce, first)
    data = place_areas(run, area, input_bytes=max(stride, len(area)))
    (run.run_dir / SAMPLES_FILE).write_bytes(samples_file)
    versions = run.product.versions.filled_from(Versions(runtime_commit=run.build.runtime_commit))
    fired = run_firmware(limited(run.plan, limits, len(input_sets)), run.build.firmware,
                         run.run_dir, run.run_id, started_at=started, data=data,
                         versions=versions)
    result = check_nonce(fired.result, fired.simulation.stream, nonce)
    result = explain_exit(result, fired.simulation.stream,
                          str(run.product.manifest["model"]["name"]))
    result.artifacts["samples"] = str(run.run_dir / SAMPLES_FILE)
    return Session(fired.simulation.stream.samples, result, fired.simulation.outcome.seconds)
