"""Simulators: the run plan (where a target runs, with which NPU executor, how), the simulator
interface with one implementation per kind (qemu, fvp), one process abstraction, sessions."""

from __future__ import annotations

from orchestrator.sim.data import DataFile
from orchestrator.sim.kinds import SimOptions, SimulatorKind
from orchestrator.sim.plan import Placement, RunPlan, place, plan_request, plan_run
from orchestrator.sim.process import ProcessOutcome, run_process
from orchestrator.sim.select import choose_simulator
from orchestrator.sim.session import SimulationResult, simulate

__all__ = [
    "DataFile",
    "Placement",
    "ProcessOutcome",
    "RunPlan",
    "SimOptions",
    "SimulationResult",
    "SimulatorKind",
    "choose_simulator",
    "place",
    "plan_request",
    "plan_run",
    "run_process",
    "simulate",
]
