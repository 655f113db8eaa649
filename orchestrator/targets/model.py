"""Typed records of the catalogue: platforms, simulators, NPU families and targets."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Region:
    """One memory region of a platform (Secure alias)."""

    name: str
    origin: int
    length: int

    @property
    def end(self) -> int:
        return self.origin + self.length


@dataclass(frozen=True)
class Platform:
    """A board the firmware is linked for."""

    name: str
    description: str
    cpu: str
    gcc_cpu: str
    uart0: int
    regions: tuple[Region, ...]
    npu_families: tuple[str, ...]
    npu_base: int | None = None
    npu_irq: int | None = None
    float_abi: str = "hard"
    # Firmware layout / runner pool sizes replacing the defaults on a smaller board.
    layout: tuple[tuple[str, int], ...] = ()
    pools: tuple[tuple[str, int], ...] = ()
    # Set when a CPU target runs here with other compiler flags than the board's own core
    # (a cortex-m0 build on the Cortex-M3 board, an M55 built without MVE): its builds differ.
    variant: str = ""

    def region(self, name: str) -> Region:
        """The region called `name` (KeyError if the platform has none)."""
        for region in self.regions:
            if region.name == name:
                return region
        raise KeyError(f"platform {self.name} has no region {name}")


@dataclass(frozen=True)
class CpuSpec:
    """A Cortex-M CPU: how GCC builds for it and the CMSIS-NN backends it can execute."""

    name: str
    arch: str
    gcc_cpu: str
    fpu: str
    float_abi: str
    cmsis_nn: str   # the backend upstream resolves for the CPU (cmsis_nn.resolve_backend)
    cmsis_nn_allowed: tuple[str, ...]
    isa_gcc_cpu: tuple[tuple[str, str], ...] = ()   # (backend, -mcpu spelling) of overrides

    def gcc_cpu_for(self, backend: str) -> str | None:
        """-mcpu building `backend`'s kernels (None: GCC cannot spell it for this core)."""
        if backend == self.cmsis_nn:
            return self.gcc_cpu
        return dict(self.isa_gcc_cpu).get(backend)


@dataclass(frozen=True)
class Capabilities:
    """What a simulator can do; a run that needs more is refused, never faked."""

    npu: bool
    semihosting: bool
    data_loading: bool


@dataclass(frozen=True)
class Limits:
    """How long a run may take on a simulator (catalogue defaults; a run may override).

    deadline_s is the run's time limit (an FVP's --timelimit); idle_s the no-output watchdog
    (None: off); host_grace_s how long after deadline_s the host kills a simulator that
    enforces its own limit, so its stop message is seen."""

    deadline_s: float
    idle_s: float | None
    host_grace_s: float = 0.0


@dataclass(frozen=True)
class Simulator:
    """A simulator binary and how to talk to it."""

    name: str
    kind: str
    binary: str
    platforms: tuple[str, ...]
    capabilities: Capabilities
    machine: str | None = None
    npu_prefix: str | None = None
    board_prefix: str | None = None
    cpu_prefix: str | None = None
    extra_params: tuple[str, ...] = ()
    limits: Limits = Limits(deadline_s=60.0, idle_s=20.0)


@dataclass(frozen=True)
class NpuFamily:
    """An Ethos-U generation: MAC configs, Vela defaults and its PMU event set."""

    name: str
    macs: tuple[int, ...]
    platform: str
    simulator: str
    tosa_spec: str   # the TOSA profile ExecuTorch lowers for: the one target fact the graph sees
    system_config: str
    memory_mode: str
    system_configs: tuple[str, ...]
    memory_modes: tuple[str, ...]
    quantization: tuple[str, ...]
    pmu_counters: int
    pmu_events: tuple[str, ...]
    cores: tuple[tuple[int, int], ...] = ()   # (MACs, cores) where a config has more than one

    def cores_for(self, macs: int) -> int:
        """NPU cores of the `macs` configuration (1 unless the catalogue says otherwise)."""
        return dict(self.cores).get(macs, 1)


EXECUTOR_FVP = "fvp"                # the FVP's own Ethos-U model (cycle-approximate, PMU)
EXECUTOR_MODEL = "npu-model"  # an NPU model: outputs only, no timing


@dataclass(frozen=True)
class NpuModel:
    """An NPU model that runs NPU targets on simulators without an NPU."""

    name: str
    description: str
    library: str
    simulators: tuple[str, ...]
    platform: str
    families: tuple[str, ...]
    refused: tuple[tuple[str, str], ...] = ()   # (family, reason it cannot run there)

    def refusal(self, family: str) -> str | None:
        """Why `family` cannot run on this model (None when it is not refused by name)."""
        return dict(self.refused).get(family)


@dataclass(frozen=True)
class Target:
    """One target name a user can ask for, with everything resolved."""

    name: str
    cpu: str
    platform: Platform
    simulators: tuple[Simulator, ...]
    quantization: tuple[str, ...]
    npu: NpuFamily | None = None
    macs: int | None = None
    npu_models: tuple[NpuModel, ...] = ()
    cpu_spec: CpuSpec | None = None   # CPU targets: the Cortex-M CPU (cpus.<name>)
    # CPU targets: other boards of the core (`--sim` of one of their simulators moves it there)
    boards: tuple[Platform, ...] = ()

    @property
    def has_npu(self) -> bool:
        return self.npu is not None

    @property
    def system_config(self) -> str | None:
        return self.npu.system_config if self.npu else None

    @property
    def memory_mode(self) -> str | None:
        return self.npu.memory_mode if self.npu else None

    @property
    def pmu_events(self) -> tuple[str, ...]:
        return self.npu.pmu_events if self.npu else ()

    @property
    def npu_cores(self) -> int | None:
        return self.npu.cores_for(self.macs) if self.npu and self.macs else None

    def npu_model_on(self, simulator: Simulator) -> NpuModel | None:
        """The NPU model that runs this target on `simulator`, if any."""
        family = self.npu.name if self.npu else None
        return next((m for m in self.npu_models
                     if simulator.name in m.simulators and family in m.families), None)

    def npu_model_refusal(self, simulator: Simulator) -> str | None:
        """Why no NPU model runs this target on `simulator`, when the catalogue says."""
        family = self.npu.name if self.npu else ""
        return next((reason for m in self.npu_models if simulator.name in m.simulators
                     if (reason := m.refusal(family))), None)

    def board_for(self, simulator: Simulator) -> Platform | None:
        """The board `simulator` runs this target on: its platform or one of its boards."""
        return next((board for board in (self.platform, *self.boards)
                     if board.name in simulator.platforms), None)

    def simulator(self, kind: str) -> Simulator | None:
        """The first simulator of `kind` ('qemu' or 'fvp') that can run this target."""
        return next((sim for sim in self.simulators if sim.kind == kind), None)
