"""`invoke run --elf <arm_executor_runner ELF>`: run an upstream-built runner on the target's
FVP through the same process layer and command line as our own runs, and read its console
with the upstream log parser. No build id or nonce checks: we did not build this ELF."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.foundation.command_line import invoke_line
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.parse import UpstreamLogParser, result_from_facts
from orchestrator.results import Kind, RunResult, Status
from orchestrator.results.model import Simulation, utc_now
from orchestrator.sim.data import DataFile
from orchestrator.sim.launch import COMMAND, TRANSCRIPT
from orchestrator.sim.limits import RunLimits
from orchestrator.sim.plan import RunPlan, place, plan_placed, sim_options
from orchestrator.sim.process import ProcessOutcome
from orchestrator.sim.session import launch
from orchestrator.targets import Target, load_catalogue

if TYPE_CHECKING:
    from orchestrator.options.run import RunRequest

SOURCE = "upstream-elf"
ELF_MAGIC = b"\x7fELF"
ETDUMP_DIR = "etdump"


def elf_path(elf: str | None, target: str) -> Path:
    """The ELF to run: it must exist and be an ELF file."""
    usage = f"invoke run --target {target} --elf <arm_executor_runner ELF>"
    path = Path(elf or "")
    if not elf or not path.is_file():
        raise OrchestratorError(f"ELF file {elf} does not exist", usage)
    with path.open("rb") as handle:
        if handle.read(len(ELF_MAGIC)) != ELF_MAGIC:
            raise OrchestratorError(f"{path} is not an ELF file", usage)
    return path.resolve()


def data_files(specs: Sequence[str]) -> list[DataFile]:
    """`FILE@ADDR` items (address in decimal or 0x-hex) as data files to load."""
    found = []
    for spec in specs:
        name, _, address = spec.rpartition("@")
        try:
            value = int(address, 0)
        except ValueError:
            value = -1
        if not name or value < 0:
            raise OrchestratorError(f"--data {spec} is not FILE@ADDRESS",
                                    "pass e.g. --data model.pte@0x70000000")
        if not Path(name).is_file():
            raise OrchestratorError(f"--data file {name} does not exist",
                                    "pass an existing file: --data <file>@<address>")
        found.append(DataFile(Path(name).resolve(), value))
    return found


def plan_for(work: Scratch, request: RunRequest, target: Target) -> RunPlan:
    """The requested simulator, else the target's first FVP; never an NPU model
    (an upstream ELF drives a real NPU device), refused with the reason."""
    requested = request.sim
    if requested in (None, "auto"):
        fvps = [sim for sim in target.simulators if sim.kind == "fvp"]
        requested = fvps[0].name if fvps else None
    rerun = invoke_line("run", target=target.name, elf="<ELF>")
    try:
        placement = place(target, requested, npu_model=False, needs_data=bool(request.data))
    except OrchestratorError as error:
        raise OrchestratorError(error.cause, f"{rerun} --sim fvp (invoke targets)") from None
    return plan_placed(work, placement, sim_options(request), rerun=rerun)


def run_upstream_elf(request: RunRequest, work: Scratch) -> RunResult:
    """Run the ELF, stream its console into the upstream parser, return the RunResult."""
    if request.model is not None:
        raise OrchestratorError("--elf runs a runner with its model built in or loaded by "
                                "--data, so --model does not apply",
                                f"invoke run --target {request.target} --elf <ELF>")
    target = load_catalogue().target(request.target)
    elf = elf_path(request.elf, target.name)
    data = data_files(request.data)
    plan = plan_for(work, request, target)
    run_id, started = request.run_id, utc_now()
    run_dir = work.runs / run_id
    parser = UpstreamLogParser(run_dir / ETDUMP_DIR)
    _, outcome = launch(plan, elf, run_dir, consumer=parser.feed_chunk, data=data)
    facts = parser.finish()
    note_outcome(facts.simulation, outcome)
    facts.target.simulator = plan.simulator.name
    facts.target.options.update({"elf": str(elf), "num_macs": target.macs,
                                 "limits": plan.limits.record(),
                                 "data": [f"{d.path}@0x{d.address:x}" for d in data]})
    result = result_from_facts(facts, source=SOURCE, target=target.name,
                               pmu_events=target.pmu_events, versions=plan.versions_now(),
                               transcript=run_dir / TRANSCRIPT,
                               timings_s={"simulate": round(outcome.seconds, 3)}, run_id=run_id)
    result.started_at, result.finished_at = started, utc_now()
    result.artifacts.update({"elf": str(elf), "command": str(run_dir / COMMAND)})
    return name_the_limit(result, plan.limits, outcome)


LIMIT_KINDS = {Kind.CPU_TIME_LIMIT: "deadline", Kind.TIMEOUT: "deadline"}


def name_the_limit(result: RunResult, limits: RunLimits, outcome: ProcessOutcome) -> RunResult:
    """A run stopped at a time limit says which setting to raise (issue 16)."""
    stopped_by = outcome.stopped_by or LIMIT_KINDS.get(result.classification.kind)
    if result.status is Status.TIMEOUT and stopped_by:
        result.classification.next_step = limits.raise_hint(stopped_by)
    return result


def note_outcome(simulation: Simulation, outcome: ProcessOutcome) -> None:
    """The process facts the log cannot show: exit status and a host stop."""
    simulation.exit_code = outcome.exit_code
    if outcome.stopped_by:
        simulation.host_timeout_s = round(outcome.seconds, 3)
