"""Pick the simulator for a target and refuse, with a reason, what it cannot do (the parts of
orchestrator.sim.plan.place, which every run path asks)."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets import Simulator, Target, load_catalogue


def _named(requested: str) -> list[Simulator]:
    """Catalogue simulators matching a kind ('qemu', 'fvp') or an exact name."""
    simulators = load_catalogue().simulators.values()
    return [sim for sim in simulators if requested in (sim.kind, sim.name)]


def refuse_unless_capable(simulator: Simulator, target: Target, needs_npu: bool,
                          needs_data: bool = False, npu_model: bool = True) -> None:
    """Raise with the reason when `simulator` cannot honestly run `target`. `npu_model`: the
    firmware is ours and can link the NPU model where the simulator has no NPU
    (False for an upstream-built ELF, which drives a real NPU device)."""
    others = ", ".join(sim.name for sim in target.simulators) or "none"
    model = target.npu_model_on(simulator) if npu_model else None
    if needs_npu and not simulator.capabilities.npu and model is None:
        why = target.npu_model_refusal(simulator) or "results would be fake"
        raise OrchestratorError(
            f"{simulator.name} has no Ethos-U NPU, so {target.name} cannot run on it ({why})",
            f"invoke run --target {target.name} --sim fvp (simulators for it: {others})")
    platform = model.platform if needs_npu and model is not None else target.platform.name
    if platform not in simulator.platforms and target.board_for(simulator) is None:
        raise OrchestratorError(
            f"{simulator.name} cannot run platform {target.platform.name} of {target.name}",
            f"use one of: {others} (invoke targets)")
    if needs_data and not simulator.capabilities.data_loading:
        raise OrchestratorError(f"{simulator.name} cannot load data files into memory",
                                f"use one of: {others}")


def choose_simulator(target: Target, requested: str | None = None,
                     needs_npu: bool | None = None, npu_model: bool = True,
                     needs_data: bool = False) -> Simulator:
    """The simulator to use: the requested kind/name, else the target's first one."""
    needs_npu = target.has_npu if needs_npu is None else needs_npu
    if requested is None:
        if not target.simulators:
            raise OrchestratorError(f"no simulator can run {target.name}", "invoke targets")
        chosen = target.simulators[0]
    else:
        candidates = _named(requested)
        if not candidates:
            names = sorted({sim.kind for sim in load_catalogue().simulators.values()})
            raise OrchestratorError(f"unknown simulator '{requested}' (valid: "
                                    f"{', '.join(names)} or a simulator name)", "invoke targets")
        chosen = next((sim for sim in candidates if sim in target.simulators), candidates[0])
    refuse_unless_capable(chosen, target, needs_npu=needs_npu, needs_data=needs_data,
                          npu_model=npu_model)
    return chosen


def placed_on(target: Target, simulator: Simulator) -> Target:
    """`target` as it runs on `simulator`: an NPU target on a simulator without an NPU moves
    to the platform of the NPU model that runs it there (QEMU: mps3-an547)."""
    model = target.npu_model_on(simulator) if not simulator.capabilities.npu else None
    if model is None:
        return target
    return replace(target, platform=load_catalogue().platforms[model.platform],
                   simulators=(simulator,))


def on_board(target: Target, simulator: Simulator) -> Target:
    """`target` as `simulator` runs it: a CPU target on the simulator of another of its boards
    (cortex-m33 on qemu-mps3-an524) moves to that board; otherwise unchanged."""
    board = target.board_for(simulator)
    return target if board in (None, target.platform) else replace(
        target, platform=board, simulators=(simulator,))
