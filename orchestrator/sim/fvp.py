"""The Corstone FVP command line, built from the catalogue's parameter prefixes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.options.fvp import FvpExtras
from orchestrator.results import RunResult
from orchestrator.setup.lock import installed_binary, read_lock
from orchestrator.sim.data import DataFile
from orchestrator.sim.fvp_run import explain_fvp_stop, fvp_environment, setup_artifact
from orchestrator.sim.kinds import PMU_TRACE, Invocation
from orchestrator.targets import Simulator


@dataclass(frozen=True)
class FvpOptions:
    """Per-run FVP settings (upstream run_fvp.sh / runner_utils.py equivalents); the PMU trace
    is written beside the semihosting files (the run directory)."""

    macs: int | None = None
    timelimit_s: int | None = None
    semihosting_cwd: Path | None = None
    extras: FvpExtras = FvpExtras()
    extra_params: tuple[str, ...] = field(default=())


def fvp_parameters(simulator: Simulator, options: FvpOptions) -> list[str]:
    """The `-C name=value` parameters, in upstream order."""
    board, cpu, npu = simulator.board_prefix, simulator.cpu_prefix, simulator.npu_prefix
    params = []
    if options.macs is not None:
        params.append(f"{npu}num_macs={options.macs}")
    params += [f"{board}visualisation.disable-visualisation=1",
               f"{board}telnetterminal0.start_telnet=0",
               f"{board}uart0.out_file=-",
               f"{board}uart0.shutdown_on_eot=1",
               *simulator.extra_params]
    if simulator.capabilities.semihosting:
        params += [f"{cpu}semihosting-enable=1", f"{cpu}semihosting-stack_base=0",
                   f"{cpu}semihosting-heap_limit=0"]
        if options.semihosting_cwd is not None:
            params.append(f"{cpu}semihosting-cwd={options.semihosting_cwd}")
    trace = (options.semihosting_cwd or Path()) / PMU_TRACE
    npu_args = (["--fast"] if options.extras.fast else []) + (
        [f"--pmu-trace {trace}"] if options.extras.pmu_trace else [])
    if npu_args and simulator.capabilities.npu:
        params.append(f"{npu}extra_args={' '.join(npu_args)}")
    return params + list(options.extra_params)


def fvp_command(simulator: Simulator, binary: Path, elf: Path, data: Sequence[DataFile] = (),
                options: FvpOptions | None = None) -> list[str]:
    """`<FVP> -C ... -a <elf> [--data file@addr] [--timelimit s]`."""
    options = options or FvpOptions()
    command = [str(binary)]
    for param in fvp_parameters(simulator, options):
        command += ["-C", param]
    command += ["-a", str(elf)]
    for item in data:
        command += ["--data", f"{item.path}@0x{item.address:x}"]
    if options.timelimit_s is not None:
        command += ["--timelimit", str(options.timelimit_s)]
    return command


class Fvp:
    """A Corstone FVP installed by setup: the catalogue's parameter prefixes, setup's recorded
    environment and version, stops read from its own messages."""

    def binary(self, work: Scratch, simulator: Simulator) -> Path:
        artifact = setup_artifact(simulator)
        hint = f"invoke setup --only {artifact}"
        if artifact not in read_lock(work):
            raise OrchestratorError(f"{simulator.name} is not set up in {work.root}", hint)
        return installed_binary(work, artifact, simulator.binary, setup_hint=hint)

    def command(self, run: Invocation) -> list[str]:
        options = FvpOptions(macs=run.options.macs, timelimit_s=int(run.limits.deadline_s),
                             semihosting_cwd=run.run_dir, extras=run.options.fvp)
        return fvp_command(run.simulator, run.binary, run.elf, run.data, options)

    def environment(self, binary: Path, work: Scratch | None) -> dict[str, str] | None:
        return fvp_environment(binary, work)

    def version(self, work: Scratch | None, simulator: Simulator, binary: Path) -> str | None:
        """The version setup's probe recorded (it started the FVP once with --version)."""
        entry = (read_lock(work).get(setup_artifact(simulator)) or {}) if work else {}
        recorded = entry.get("reported_version") or entry.get("version")
        return str(recorded) if recorded else None

    def explain_stop(self, result: RunResult, transcript: str) -> RunResult:
        return explain_fvp_stop(result, transcript)


KIND = Fvp()
