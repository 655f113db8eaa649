"""Our FVP command line equals upstream's run_fvp.sh for every NPU target, so drift in either
is caught. Upstream's arguments are data here, read from ExecuTorch v1.4.1
backends/arm/scripts/run_fvp.sh (line numbers cited per entry); our deliberate additions are
listed with their reason. Order of `-C` parameters does not matter to an FVP; everything
else (binary, -a, --data, --timelimit) is compared in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.options.fvp import FvpExtras
from orchestrator.sim.data import DataFile
from orchestrator.sim.kinds import SimOptions
from orchestrator.sim.plan import place, plan_placed
from orchestrator.targets import load_catalogue

UPSTREAM_TIMEOUT = "600"   # run_fvp.sh:24 timeout="600", passed as --timelimit (191, 206)

# run_fvp.sh:66-72: the FVP binary per target family.
UPSTREAM_BINARY = {"ethos-u55": "FVP_Corstone_SSE-300_Ethos-U55",
                   "ethos-u65": "FVP_Corstone_SSE-300_Ethos-U65",
                   "ethos-u85": "FVP_Corstone_SSE-320"}

# The -C parameters run_fvp.sh passes with --semihosting-cwd=<dir> [--fast].
UPSTREAM_PARAMS = {
    "corstone-300": {
        "fixed": ["ethosu.num_macs={macs}",                              # 182 (macs: 91)
                  "mps3_board.visualisation.disable-visualisation=1",    # 183
                  "mps3_board.telnetterminal0.start_telnet=0",           # 184
                  "mps3_board.uart0.out_file=-",                         # 185 ('-' unquoted)
                  "mps3_board.uart0.shutdown_on_eot=1"],                 # 186
        "fast": ["ethosu.extra_args=--fast"],                            # 114-121
        "semihosting": ["cpu0.semihosting-enable=1",                     # 129-134
                        "cpu0.semihosting-stack_base=0",
                        "cpu0.semihosting-heap_limit=0",
                        "cpu0.semihosting-cwd={cwd}"],
    },
    "corstone-320": {
        "fixed": ["mps4_board.subsystem.ethosu.num_macs={macs}",         # 195
                  "mps4_board.visualisation.disable-visualisation=1",    # 196
                  "vis_hdlcd.disable_visualisation=1",                   # 197
                  "mps4_board.telnetterminal0.start_telnet=0",           # 198
                  "mps4_board.uart0.out_file=-",                         # 199
                  "mps4_board.uart0.unbuffered_output=1",                # 200
                  "mps4_board.uart0.shutdown_on_eot=1"],                 # 201
        "fast": ["mps4_board.subsystem.ethosu.extra_args=--fast"],       # 114-122
        "semihosting": ["mps4_board.subsystem.cpu0.semihosting-enable=1",  # 135-140
                        "mps4_board.subsystem.cpu0.semihosting-stack_base=0",
                        "mps4_board.subsystem.cpu0.semihosting-heap_limit=0",
                        "mps4_board.subsystem.cpu0.semihosting-cwd={cwd}"],
    },
}

# Ours beyond upstream, on purpose: Corstone-300's UART unbuffered like upstream's C320 line
# 200, so output arrives as it is written (issue 16).
OUR_ADDITIONS = {"corstone-300": ["mps3_board.uart0.unbuffered_output=1"], "corstone-320": []}

NPU_TARGETS = [t.name for t in load_catalogue() if t.has_npu]


def _params(argv: list[str]) -> list[str]:
    return sorted(argv[i + 1] for i, arg in enumerate(argv) if arg == "-C")


def _rest(argv: list[str]) -> list[str]:
    """Everything but the -C pairs, in order."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "-C":
            skip = True
        else:
            out.append(arg)
    return out


def upstream_argv(target_name: str, elf: Path, data: DataFile, cwd: Path,
                  fast: bool) -> list[str]:
    """run_fvp.sh --elf=<elf> --data=<file>@<addr> --target=<t> --semihosting-cwd=<cwd>
    [--fast], as the data above says (lines 181-191 for U55/U65, 194-206 for U85)."""
    target = load_catalogue().target(target_name)
    table = UPSTREAM_PARAMS[target.platform.name]
    params = table["fixed"] + (table["fast"] if fast else []) + table["semihosting"]
    argv = [UPSTREAM_BINARY[target.npu.name if target.npu else ""]]
    for param in params:
        argv += ["-C", param.format(macs=target.macs, cwd=cwd)]
    return argv + ["-a", str(elf), "--data", f"{data.path}@0x{data.address:x}",
                   "--timelimit", UPSTREAM_TIMEOUT]


@pytest.mark.parametrize("fast", [False, True], ids=["timed", "fast"])
@pytest.mark.parametrize("target_name", NPU_TARGETS)
def test_fvp_command_line_equals_run_fvp_sh(target_name, fast, tmp_path):
    target = load_catalogue().target(target_name)
    simulator = target.simulators[0]
    elf, data = tmp_path / "runner.elf", DataFile(tmp_path / "model.pte", 0x70000000)
    plan = plan_placed(None, place(target, simulator.name), SimOptions(fvp=FvpExtras(fast=fast)),
                       binary=Path(simulator.binary))
    ours = plan.kind.command(plan.invocation(elf, tmp_path, (data,)))
    theirs = upstream_argv(target_name, elf, data, tmp_path, fast)
    assert _rest(ours) == _rest(theirs)
    expected = theirs[:] + [x for add in OUR_ADDITIONS[target.platform.name]
                            for x in ("-C", add)]
    assert _params(ours) == _params(expected)


def test_cpu_targets_get_upstreams_fvp_binary():
    # run_fvp.sh:64-72: cortex-m85 on Corstone-320, other Cortex-M on the U55 FVP. Their
    # upstream command is the semihosting BundleIO runner (143-165), not our runner's lane.
    catalogue = load_catalogue()
    assert catalogue.target("cortex-m55").simulator("fvp").binary == UPSTREAM_BINARY["ethos-u55"]
    assert catalogue.target("cortex-m85").simulator("fvp").binary == UPSTREAM_BINARY["ethos-u85"]
