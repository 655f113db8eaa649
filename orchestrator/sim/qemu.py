"""The QEMU command line: mps3-an547, UART0 on stdio, semihosting, deterministic icount."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orchestrator.foundation.hosttools import qemu_binary, tool_version
from orchestrator.foundation.paths import Scratch
from orchestrator.results import RunResult
from orchestrator.sim.data import DataFile
from orchestrator.sim.kinds import Invocation
from orchestrator.sim.versions import simulator_version
from orchestrator.targets import Simulator


def qemu_command(simulator: Simulator, binary: Path, elf: Path,
                 data: Sequence[DataFile] = ()) -> list[str]:
    """`qemu-system-arm -M <machine> -nographic ... -kernel <elf>` plus one loader per file;
    the simulator's extra_params are device properties (`-global`)."""
    command = [str(binary), "-M", str(simulator.machine), "-nographic",
               "-semihosting-config", "enable=on,target=native", "-icount", "shift=0",
               *(arg for param in simulator.extra_params for arg in ("-global", param)),
               "-kernel", str(elf)]
    for item in data:
        command += ["-device", f"loader,file={item.path},addr=0x{item.address:x},force-raw=on"]
    return command


class Qemu:
    """QEMU (the OS package's qemu-system-arm): no NPU, no FVP extras, exits as it is told."""

    def binary(self, work: Scratch, simulator: Simulator) -> Path:
        return qemu_binary()

    def command(self, run: Invocation) -> list[str]:
        return qemu_command(run.simulator, run.binary, run.elf, run.data)

    def environment(self, binary: Path, work: Scratch | None) -> dict[str, str] | None:
        return None

    def version(self, work: Scratch | None, simulator: Simulator, binary: Path) -> str | None:
        """What `qemu-system-arm --version` prints (cached in `work`)."""
        return simulator_version(work, binary) if work else tool_version(binary) or None

    def explain_stop(self, result: RunResult, transcript: str) -> RunResult:
        return result   # QEMU's stops are the host's (limits) or the firmware's (records)


KIND = Qemu()
