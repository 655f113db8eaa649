"""Simulator command lines from the catalogue, and honest refusals."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.fvp import FvpExtras
from orchestrator.sim.data import DataFile
from orchestrator.sim.fvp import FvpOptions, fvp_command
from orchestrator.sim.qemu import qemu_command
from orchestrator.sim.select import choose_simulator, placed_on
from orchestrator.targets import load_catalogue

ELF = Path("/x/runner.elf")


def pairs(command: list[str]) -> list[str]:
    """The values following every -C."""
    return [command[i + 1] for i, arg in enumerate(command) if arg == "-C"]


def test_qemu_command_is_the_documented_one():
    sim = load_catalogue().simulator("qemu")
    command = qemu_command(sim, Path("/usr/bin/qemu-system-arm"), ELF,
                           [DataFile(Path("/d/m.bin"), 0x70000000)])
    assert command[:10] == ["/usr/bin/qemu-system-arm", "-M", "mps3-an547", "-nographic",
                            "-semihosting-config", "enable=on,target=native", "-icount",
                            "shift=0", "-kernel", str(ELF)]
    assert command[10:] == ["-device", "loader,file=/d/m.bin,addr=0x70000000,force-raw=on"]


def test_corstone_300_command_matches_upstream_shape():
    sim = load_catalogue().simulator("fvp-corstone-300-u55")
    command = fvp_command(sim, Path("/fvp/FVP_Corstone_SSE-300_Ethos-U55"), ELF,
                          [DataFile(Path("/d/m.bin"), 0x70000000)],
                          FvpOptions(macs=128, timelimit_s=120, semihosting_cwd=Path("/run"),
                                     extras=FvpExtras(fast=True)))
    params = pairs(command)
    assert params[0] == "ethosu.num_macs=128"
    for expected in ("mps3_board.visualisation.disable-visualisation=1",
                     "mps3_board.telnetterminal0.start_telnet=0", "mps3_board.uart0.out_file=-",
                     "mps3_board.uart0.shutdown_on_eot=1", "cpu0.semihosting-enable=1",
                     "cpu0.semihosting-cwd=/run", "ethosu.extra_args=--fast"):
        assert expected in params
    assert command[-6:] == ["-a", str(ELF), "--data", "/d/m.bin@0x70000000", "--timelimit",
                            "120"]


def test_corstone_320_uses_mps4_prefixes_and_extra_params():
    sim = load_catalogue().simulator("fvp-corstone-320")
    params = pairs(fvp_command(sim, Path("/fvp/FVP_Corstone_SSE-320"), ELF,
                               options=FvpOptions(macs=256)))
    assert params[0] == "mps4_board.subsystem.ethosu.num_macs=256"
    assert "mps4_board.uart0.unbuffered_output=1" in params
    assert "vis_hdlcd.disable_visualisation=1" in params
    assert "mps4_board.subsystem.cpu0.semihosting-enable=1" in params
    assert not any(p.startswith(("mps3_board.", "ethosu.", "cpu0.")) for p in params)


def test_u85_target_on_qemu_runs_on_the_npu_model_of_mps3_an547():
    target = load_catalogue().target("ethos-u85-128")
    qemu = choose_simulator(target, "qemu")
    assert qemu.name == "qemu"
    placed = placed_on(target, qemu)
    assert placed.platform.name == "mps3-an547" and placed.platform.cpu == "cortex-m55"


def test_platform_qemu_cannot_run_is_refused():
    with pytest.raises(OrchestratorError, match="cannot run platform corstone-320"):
        choose_simulator(load_catalogue().target("cortex-m85"), "qemu")


def test_default_and_named_simulators():
    catalogue = load_catalogue()
    assert choose_simulator(catalogue.target("cortex-m55")).name == "qemu"
    assert choose_simulator(catalogue.target("cortex-m55"), "fvp").name == "fvp-corstone-300-u55"
    assert choose_simulator(catalogue.target("ethos-u85-256"), "fvp").name == "fvp-corstone-320"
    with pytest.raises(OrchestratorError, match="unknown simulator 'renode'"):
        choose_simulator(catalogue.target("cortex-m55"), "renode")
