"""The platform self-test on every Cortex-M CPU target's QEMU board (real GCC builds with the
CPU's -mcpu and float ABI, real QEMU runs): M3/M4/M7/M33 on their own boards, M0/M0+ on the
M3 board, M23/M35P on the M33 board. No upstream sources needed."""

from __future__ import annotations

import struct

import pytest

from orchestrator.firmware.build import build_firmware, config_for_target
from orchestrator.sim.kinds import SimOptions
from orchestrator.sim.plan import place, plan_placed
from orchestrator.sim.session import simulate
from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow
BOARDS = {"cortex-m0": "mps2-an385", "cortex-m0plus": "mps2-an385", "cortex-m3": "mps2-an385",
          "cortex-m4": "mps2-an386", "cortex-m7": "mps2-an500", "cortex-m23": "mps2-an505",
          "cortex-m33": "mps2-an505", "cortex-m35p": "mps2-an505"}
FLOAT_ABI = {"cortex-m0": "soft", "cortex-m0plus": "soft", "cortex-m3": "soft",
             "cortex-m23": "soft", "cortex-m4": "hard", "cortex-m7": "hard",
             "cortex-m33": "hard", "cortex-m35p": "hard"}


@pytest.mark.parametrize("cpu", list(BOARDS))
def test_selftest_passes_on_the_cpus_qemu_board(qemu, builds, tmp_path, cpu) -> None:
    target = load_catalogue().target(cpu)
    assert (target.platform.name, target.platform.float_abi) == (BOARDS[cpu], FLOAT_ABI[cpu])
    build = builds.get(cpu)
    placement = place(target, "qemu")
    assert placement.simulator.machine == BOARDS[cpu]
    plan = plan_placed(None, placement, SimOptions(), binary=qemu[1])
    result = simulate(plan, build.elf, tmp_path, expected_build_id=build.build_id)
    assert result.outcome.exit_code == 0, result.outcome
    assert result.verdict.status == "pass"
    assert result.stream.begin.platform == BOARDS[cpu]
    assert elf_float_abi(build.elf.read_bytes()) == FLOAT_ABI[cpu]


@pytest.mark.parametrize("cpu", ["cortex-m0", "cortex-m3", "cortex-m33"])
def test_a_fault_is_caught_on_armv6m_v7m_and_v8m(qemu, builds, tmp_path, cpu) -> None:
    """The fault entry (Thumb-1 on Armv6-M, IT blocks on v7-M, MSPLIM cleared on v8-M
    Mainline) reports a classified hard fault."""
    build = builds.get(cpu, "EOR_SELFTEST_BEHAVIOUR=fault")
    plan = plan_placed(None, place(load_catalogue().target(cpu), "qemu"), SimOptions(),
                       binary=qemu[1])
    result = simulate(plan, build.elf, tmp_path, expected_build_id=build.build_id)
    assert result.verdict.cause == "hard_fault" and result.verdict.status == "error"


def elf_float_abi(elf: bytes) -> str:
    """The ELF header's float ABI flag (e_flags EF_ARM_ABI_FLOAT_SOFT / _HARD)."""
    (flags,) = struct.unpack_from("<I", elf, 0x24)
    return {0x200: "soft", 0x400: "hard"}[flags & 0x600]


def test_another_cores_build_keeps_its_own_directory(builds) -> None:
    m0, m3 = builds.get("cortex-m0"), builds.get("cortex-m3")
    assert m0.elf != m3.elf and m0.build_id != m3.build_id


def test_cortex_m33_runs_on_the_an524_when_its_simulator_is_asked_for(qemu, fw_scratch,
                                                                      tmp_path) -> None:
    """--sim qemu-mps3-an524 links the cortex-m33 for the AN524 (BRAM vectors, SSE-200 SRAM,
    DDR) and runs it on QEMU's mps3-an524, CPU 0 with its FPU and DSP switched on."""
    placement = place(load_catalogue().target("cortex-m33"), "qemu-mps3-an524")
    assert (placement.target.platform.name, placement.simulator.machine) == (
        "mps3-an524", "mps3-an524")
    assert place(load_catalogue().target("cortex-m33"), "qemu").simulator.machine == "mps2-an505"
    build = build_firmware(fw_scratch, config_for_target(placement.target))
    plan = plan_placed(None, placement, SimOptions(), binary=qemu[1])
    result = simulate(plan, build.elf, tmp_path, expected_build_id=build.build_id)
    assert result.verdict.status == "pass", result.outcome
    assert result.stream.begin.platform == "mps3-an524"
    assert elf_float_abi(build.elf.read_bytes()) == "hard"
