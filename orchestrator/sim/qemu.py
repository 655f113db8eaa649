"""The QEMU command line: mps3-an547, UART0 on stdio, semihosting, deterministic icount."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from orchestrator.sim.data import DataFile
from orchestrator.targets import Simulator


def qemu_command(simulator: Simulator, binary: Path, elf: Path,
                 data: Sequence[DataFile] = ()) -> list[str]:
    """`qemu-system-arm -M <machine> -nographic ... -kernel <elf>` plus one loader per file."""
    command = [str(binary), "-M", str(simulator.machine), "-nographic",
               "-semihosting-config", "enable=on,target=native", "-icount", "shift=0",
               "-kernel", str(elf)]
    for item in data:
        command += ["-device", f"loader,file={item.path},addr=0x{item.address:x},force-raw=on"]
    return command
