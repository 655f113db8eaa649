"""Simulators: one process abstraction, QEMU and FVP command lines, capabilities, sessions."""

from __future__ import annotations

from orchestrator.sim.data import DataFile
from orchestrator.sim.process import ProcessOutcome, run_process
from orchestrator.sim.select import choose_simulator, refuse_unless_capable
from orchestrator.sim.session import SimulationResult, simulate

__all__ = [
    "DataFile",
    "ProcessOutcome",
    "SimulationResult",
    "choose_simulator",
    "refuse_unless_capable",
    "run_process",
    "simulate",
]
