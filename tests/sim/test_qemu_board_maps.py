"""Every memory region the catalogue gives a QEMU board (orchestrator/data/targets.toml) is
memory in that QEMU machine: the installed qemu-system-arm's `info mtree -f` of the CPU's
(Secure) address space maps RAM, or memory behind a TrustZone MPC, over the whole region
without a gap. A real QEMU per board, stopped before its first instruction."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow
_ENTRY = re.compile(r"^\s*([0-9a-f]+)-([0-9a-f]+) \(prio -?\d+, ([\w/]+)\): (\S+)")
MEMORY = {"ram", "rom"}
BEHIND_MPC = "tz-mpc-upstream"   # an MPC's upstream side: the memory it guards
# The machine's own RAM/MPC regions the test reads: the Secure view where the core has one.
ADDRESS_SPACES = ("cpu-secure-memory-0", "cpu-memory-0")
BOARDS = sorted({sim.machine: name for sim in load_catalogue().simulators.values()
                 if sim.kind == "qemu" for name in sim.platforms}.items())


def flat_memory(machine: str) -> list[tuple[int, int]]:
    """(start, end) of every RAM/ROM/MPC-guarded range in the CPU's address space."""
    qemu = shutil.which("qemu-system-arm")
    if qemu is None:
        pytest.skip("qemu-system-arm is not installed (apt-get install qemu-system-arm)")
    text = subprocess.run([qemu, "-M", machine, "-S", "-nographic", "-serial", "null",
                           "-monitor", "stdio"], input="info mtree -f\nquit\n",
                          capture_output=True, text=True, timeout=60).stdout
    views = text.replace("\r", "").split("FlatView #")
    view = next(v for space in ADDRESS_SPACES for v in views if f'AS "{space}"' in v)
    ranges = []
    for line in view.splitlines():
        found = _ENTRY.match(line)
        if found and (found[3] in MEMORY or found[4] == BEHIND_MPC):
            ranges.append((int(found[1], 16), int(found[2], 16)))
    return sorted(ranges)


def covered(ranges: list[tuple[int, int]], origin: int, length: int) -> bool:
    """Whether [origin, origin + length) lies inside consecutive ranges without a gap."""
    position, end = origin, origin + length
    for start, last in ranges:
        if start <= position <= last:
            position = last + 1
            if position >= end:
                return True
    return False


@pytest.mark.parametrize(("machine", "platform"), BOARDS)
def test_every_region_of_the_board_is_memory_in_qemu(machine, platform) -> None:
    ranges = flat_memory(machine)
    board = load_catalogue().platforms[platform]
    gaps = [f"{region.name} 0x{region.origin:08x}+0x{region.length:x}"
            for region in board.regions if not covered(ranges, region.origin, region.length)]
    assert not gaps, f"{machine}: not memory in QEMU: {gaps}"


def test_a_region_past_the_memory_is_seen() -> None:
    ranges = flat_memory("mps3-an524")
    assert covered(ranges, 0x10000000, 0x80000)         # BRAM, Secure alias
    assert not covered(ranges, 0x10000000, 0x100000)    # twice the BRAM runs off its end
