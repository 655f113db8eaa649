"""The run plan: one request made into everything a simulation needs, decided once. Which
simulator runs the target and with which NPU executor (the one place that answers it: place),
the binary, the time limits, the simulator options and the versions the plan fixes. Every run
path (invoke run's apps, the upstream-ELF lane, both regress lanes) builds one and simulates
through it (orchestrator.sim.session.simulate)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.npu_model.version import model_version
from orchestrator.options.run import RunChoices, RunRequest
from orchestrator.results import Versions
from orchestrator.results.model import NPU_MODEL_VERSION
from orchestrator.sim.data import DataFile
from orchestrator.sim.kinds import Invocation, SimOptions, SimulatorKind, kind_of
from orchestrator.sim.limits import RunLimits, run_limits
from orchestrator.sim.select import choose_simulator, on_board, placed_on
from orchestrator.targets import Simulator, Target, load_catalogue
from orchestrator.targets.model import EXECUTOR_FVP, EXECUTOR_MODEL, NpuModel


@dataclass(frozen=True)
class Placement:
    """A target placed on a simulator: the target as it runs there (an NPU target on a
    simulator without an NPU moves to its NPU model's platform), and which NPU
    executes its command streams (None: a CPU target)."""

    target: Target
    simulator: Simulator
    npu_executor: str | None = None
    npu_model: NpuModel | None = None
    foreign: bool = False   # firmware we did not build (no NPU model can stand in)


def place(target: Target, requested: str | None = None, *, npu_model: bool = True,
          needs_data: bool = False) -> Placement:
    """Can `target` run on the requested simulator (kind or name; None or 'auto': its first),
    and with which NPU executor: the one answer, or the refusal with its reason. `npu_model`
    False: the firmware is not ours (an upstream ELF), so no NPU model can stand in."""
    simulator = choose_simulator(target, None if requested == "auto" else requested,
                                 npu_model=npu_model, needs_data=needs_data)
    model = (target.npu_model_on(simulator)
             if npu_model and target.has_npu and not simulator.capabilities.npu else None)
    executor = None if not target.has_npu else EXECUTOR_MODEL if model else EXECUTOR_FVP
    return Placement(placed_on(target, simulator) if model else on_board(target, simulator),
                     simulator, executor,
                     model, foreign=not npu_model)


@dataclass(frozen=True)
class RunPlan:
    """Everything decided before a simulator starts; simulate(plan, elf, run_dir) runs it."""

    placement: Placement
    binary: Path
    limits: RunLimits
    options: SimOptions
    versions: Versions
    environment: dict[str, str] | None = None

    @property
    def target(self) -> Target:
        return self.placement.target

    @property
    def simulator(self) -> Simulator:
        return self.placement.simulator

    @property
    def npu_executor(self) -> str | None:
        return self.placement.npu_executor

    @property
    def kind(self) -> SimulatorKind:
        """The implementation of the simulator's kind (its command line, its stops)."""
        return kind_of(self.simulator)

    def versions_now(self) -> Versions:
        """A fresh copy of the plan's versions for one result (results are mutable)."""
        return replace(self.versions, extra=dict(self.versions.extra))

    def invocation(self, elf: Path, run_dir: Path, data: tuple[DataFile, ...] = ()
                   ) -> Invocation:
        return Invocation(self.simulator, self.binary, elf, run_dir, self.limits, self.options,
                          data)


def plan_run(work: Scratch, target: Target | str, requested: str | None = None,
             options: SimOptions | None = None, *, rerun: str, npu_model: bool = True,
             needs_data: bool = False) -> RunPlan:
    """The plan of one run of `target` on the requested simulator; `rerun` is the command a
    refusal's next step repeats with another simulator."""
    if isinstance(target, str):
        target = load_catalogue().target(target)
    placement = place(target, requested, npu_model=npu_model, needs_data=needs_data)
    return plan_placed(work, placement, options, rerun=rerun)


def plan_placed(work: Scratch | None, placement: Placement, options: SimOptions | None = None,
                *, rerun: str = "invoke run --help", binary: Path | None = None) -> RunPlan:
    """The plan of a run already placed (place): binary (`binary`, else the one `work`'s
    setup recorded or the OS provides), limits, options, versions."""
    kind = kind_of(placement.simulator)
    if binary is None:
        if work is None:
            raise ValueError("plan_placed needs a scratch tree or a binary")
        binary = _binary(work, kind, placement, rerun)
    options = options or SimOptions()
    if options.macs is None and placement.target.macs is not None:
        options = replace(options, macs=placement.target.macs)
    extra = ({NPU_MODEL_VERSION: model_version()}
             if placement.npu_executor == EXECUTOR_MODEL else {})
    versions = Versions(simulator=placement.simulator.binary,
                        simulator_version=kind.version(work, placement.simulator, binary),
                        extra=extra)
    limits = run_limits(placement.simulator, options.timeout_s, options.idle_timeout_s)
    return RunPlan(placement, binary, limits, options, versions, kind.environment(binary, work))


def sim_options(request: RunChoices) -> SimOptions:
    """The simulator options a run request asks for."""
    return SimOptions(timeout_s=request.timeout_s, idle_timeout_s=request.idle_timeout_s,
                      fvp=request.runner.fvp)


def plan_request(work: Scratch, request: RunChoices, *, requested: str | None = None,
                 rerun: str | None = None, npu_model: bool = True,
                 needs_data: bool = False) -> RunPlan:
    """The plan of `request` (its target, its --sim unless `requested` overrides it)."""
    app = request.app if isinstance(request, RunRequest) else None
    shown = {"model": request.model} if request.model else {"app": app}
    return plan_run(work, request.target, requested or request.sim, sim_options(request),
                    rerun=rerun or invoke_line("run", target=request.target, **shown),
                    npu_model=npu_model, needs_data=needs_data)


def _binary(work: Scratch, kind: SimulatorKind, placement: Placement, rerun: str) -> Path:
    """The simulator's binary; a missing FVP for an NPU target that an NPU model
    can also run names both fixes: set the FVP up, or rerun on the model's simulator."""
    simulator, target = placement.simulator, placement.target
    try:
        return kind.binary(work, simulator)
    except OrchestratorError as error:
        alternative = next((sim for sim in load_catalogue().simulators.values()
                            if target.npu_model_on(sim) is not None), None)
        if placement.foreign or placement.npu_executor != EXECUTOR_FVP or alternative is None:
            raise
        from orchestrator.sim.fvp_run import setup_artifact  # an FVP set-up hint only

        raise OrchestratorError(
            f"{error.cause}, and {target.name} needs it to run on a simulated Ethos-U",
            f"invoke setup --only {setup_artifact(simulator)}, or run on the NPU "
            f"model (outputs, no NPU timing): {rerun} --sim {alternative.kind}") from error


def simulator_binary(work: Scratch, simulator: Simulator) -> Path:
    """The binary of `simulator` (its kind finds it), or the setup step that installs it."""
    return kind_of(simulator).binary(work, simulator)
