"""Cortex-M CPU targets: the CMSIS-NN backend a compile uses (its ISA override checked against
the core), the firmware's flags for it, and what ran it where QEMU has no board of the CPU's
own. Facts come from targets.toml [cpus.*] (upstream's target_config.py table)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets.catalogue import CMSIS_NN_BACKENDS
from orchestrator.targets.model import CpuSpec, Simulator, Target


def cpu_of(target: Target) -> CpuSpec:
    """The CPU spec of a CPU target (an NPU target has none: a programming error)."""
    if target.cpu_spec is None:
        raise OrchestratorError(f"target {target.name} is not a Cortex-M CPU target",
                                "invoke targets lists the cortex-m targets")
    return target.cpu_spec


def parse_isa(value: str | None, target: str = "cortex-m55") -> str | None:
    """'DSP' / 'dsp' -> 'dsp'; None stays None; anything else is refused."""
    if value is None or value == "":
        return None
    isa = value.strip().lower()
    if isa not in CMSIS_NN_BACKENDS:
        raise OrchestratorError(f"unknown ISA '{value}' (valid: {', '.join(CMSIS_NN_BACKENDS)})",
                                f"invoke compile --target {target} --isa dsp (or without "
                                "--isa for the CPU's own)")
    return isa


def check_isa(target: Target, isa: str | None) -> str | None:
    """The ISA override for `target`, refused in one sentence when the core cannot execute it
    or GCC cannot build the firmware for it; None when it is the CPU's own backend."""
    isa = parse_isa(isa, target.name)
    if isa is None:
        return None
    if target.cpu_spec is None:
        raise OrchestratorError(f"target {target.name} has an NPU, so --isa (a CMSIS-NN "
                                "backend) does not apply", f"invoke compile --target "
                                f"{target.name} without --isa")
    cpu = target.cpu_spec
    if isa not in cpu.cmsis_nn_allowed:
        raise OrchestratorError(
            f"{cpu.name} cannot execute CMSIS-NN's {isa.upper()} kernels (it runs "
            f"{', '.join(b.upper() for b in cpu.cmsis_nn_allowed)})",
            f"invoke compile --target {target.name} --isa {cpu.cmsis_nn}")
    if cpu.gcc_cpu_for(isa) is None:
        raise OrchestratorError(
            f"GCC cannot build {cpu.name} firmware without {cpu.cmsis_nn.upper()} "
            f"(-mcpu={cpu.gcc_cpu} has no switch for it), so the {isa.upper()} kernels "
            "cannot run here", f"invoke compile --target {target.name} without --isa")
    return None if isa == cpu.cmsis_nn else isa


def backend_of(target: Target, isa: str | None) -> str:
    """The CMSIS-NN backend a compile for `target` uses: the override, else the CPU's own."""
    return isa or cpu_of(target).cmsis_nn


def with_isa(target: Target, isa: str | None) -> Target:
    """`target` with its firmware built for `isa` (its platform's -mcpu spelling of it)."""
    if isa is None or target.cpu_spec is None:
        return target
    cpu = target.cpu_spec
    gcc_cpu = cpu.gcc_cpu_for(isa)
    if gcc_cpu is None or gcc_cpu == target.platform.gcc_cpu:
        return target
    return replace(target, platform=replace(target.platform, gcc_cpu=gcc_cpu, variant=gcc_cpu))


def ran_on(target: Target, simulator: Simulator | None = None) -> str | None:
    """What executed a CPU target whose core has no board of its own ('cortex-m0plus program
    ran on QEMU's Cortex-M3 ...'), or None when its own core (or a build of it) ran it."""
    cpu = target.cpu_spec
    board = target.platform
    if cpu is None or board.cpu in (cpu.name, cpu.gcc_cpu):
        return None
    where = f"QEMU's {_core(board.cpu)} ({board.name})" if simulator is None \
        or simulator.kind == "qemu" else f"{simulator.name}'s {_core(board.cpu)}"
    return (f"{cpu.name} program (-mcpu={cpu.gcc_cpu}) ran on {where}: same instructions, "
            "no timing of the " + _core(cpu.name))


def _core(name: str) -> str:
    """'cortex-m0plus' -> 'Cortex-M0plus'."""
    return "Cortex-M" + name.removeprefix("cortex-m").upper().replace("PLUS", "plus")


def cortex_m_record(target: Target, isa: str | None, simulator: Simulator | None = None,
                    ran: bool = False) -> dict[str, Any]:
    """The CPU facts a product and a result record: CPU, ISA, CMSIS-NN backend, GCC flags;
    with `ran` (a result), which core executed it where that is not the CPU's own."""
    cpu = cpu_of(target)
    backend = backend_of(target, isa)
    record: dict[str, Any] = {
        "cpu": cpu.name, "arch": cpu.arch, "isa": backend, "isa_override": isa,
        "cmsis_nn_backend": backend.upper(), "cmsis_nn_default": cpu.cmsis_nn.upper(),
        "gcc_cpu": cpu.gcc_cpu_for(backend) or cpu.gcc_cpu, "fpu": cpu.fpu,
        "float_abi": cpu.float_abi, "board": target.platform.name,
        "board_cpu": target.platform.cpu,
    }
    note = ran_on(target, simulator) if ran else None
    if note:
        record["ran_on"] = note
    return record
