"""The selftest on real QEMU: records, exact tensors, exit codes, faults, hangs, stale ELFs."""

from __future__ import annotations

import os
import struct
import zlib
from pathlib import Path

import pytest

from orchestrator.sim.data import DataFile
from orchestrator.sim.kinds import SimOptions
from orchestrator.sim.plan import place, plan_placed
from orchestrator.sim.session import simulate
from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow

M, K, N = 8, 16, 8


def kernel_inputs() -> tuple[list[list[int]], list[list[int]]]:
    """The selftest kernel's inputs, recomputed on the host (firmware/apps/selftest/kernel.c)."""
    a = [[((i * K + k) * 7) % 256 - 128 for k in range(K)] for i in range(M)]
    b = [[((k * N + j) * 13) % 256 - 128 for j in range(N)] for k in range(K)]
    return a, b


def run(qemu, build, run_dir: Path, data=(), deadline_s=None, idle_s=None,
        expected_build_id=None):
    simulator, binary = qemu
    placement = place(load_catalogue().target("cortex-m55"), simulator.name)
    plan = plan_placed(None, placement, SimOptions(timeout_s=deadline_s, idle_timeout_s=idle_s),
                       binary=binary)
    return simulate(plan, build.elf, run_dir, data=data,
                    expected_build_id=expected_build_id or build.build_id)


@pytest.fixture(scope="module")
def passing(qemu, builds, tmp_path_factory):
    return run(qemu, builds.get("cortex-m55"), tmp_path_factory.mktemp("pass"))


def test_selftest_passes_with_exit_code_zero(passing):
    assert passing.outcome.exit_code == 0
    assert passing.verdict.cause == "pass" and passing.verdict.status == "pass"
    stream = passing.stream
    assert stream.complete and not stream.problems
    assert stream.begin.app == "selftest" and stream.begin.platform == "mps3-an547"
    assert stream.end.status == "pass" and stream.end.records == stream.frames


def test_every_platform_check_passes(passing):
    checks = {check.name: check for check in passing.stream.checks}
    assert set(checks) >= {"data_init", "bss_zero", "cxx_constructor", "fpu_sqrt", "mve_dot",
                           "crc32", "heap", "semihosting_file", "kernel_sum"}
    assert all(check.ok and check.got == check.expected for check in checks.values())


def test_kernel_output_is_exact(passing):
    a, b = kernel_inputs()
    tensors = passing.stream.tensors
    assert tensors[1].values() == [v for row in a for v in row]
    assert tensors[2].values() == [v for row in b for v in row]
    expected = [sum(a[i][k] * b[k][j] for k in range(K)) for i in range(M) for j in range(N)]
    assert tensors[0].dtype == "int32" and tensors[0].shape == (M, N)
    assert tensors[0].values() == expected


def test_every_dtype_arrives_bit_exact(passing):
    t = passing.stream.tensors
    assert t[3].values() == [-128, -1, 0, 1, 127]
    assert t[4].values() == [0, 1, 128, 255]
    assert t[5].values() == [-32768, -1, 0, 32767]
    assert t[6].values() == [0, 1, 65535]
    assert t[7].values() == [-(2**31), -1, 0, 2**31 - 1]
    assert t[8].values() == [0, 1, 2**32 - 1]
    assert t[9].values() == [-(2**63), -1, 0, 2**63 - 1]
    assert t[10].values() == [0, 1, 2**64 - 1]
    assert t[11].data == struct.pack("<5H", 0x3C00, 0x8000, 0x7C00, 0x7E00, 0x0001)
    assert t[12].data == struct.pack("<4H", 0x3F80, 0xBF80, 0x7F80, 0x0001)
    floats = struct.pack("<7f", 1.5, -0.0, float("inf"), float("-inf"), float("nan"), 1e-40,
                         3.4028235e38)
    assert t[13].data[:16] == floats[:16] and t[13].data[20:] == floats[20:]
    assert struct.unpack("<I", t[13].data[16:20])[0] & 0x7FC00000 == 0x7FC00000  # a NaN
    assert t[14].values()[:3] == [0.1, -0.0, float("inf")] and t[14].values()[4:] == [
        5e-324, 1.7976931348623157e308]
    assert t[15].values() == [True, False, True]
    assert t[16].shape == () and t[16].values() == [42]


def test_metrics_name_their_source(passing):
    stream = passing.stream
    cycles = stream.metric("total_cycles")
    assert cycles.source == "systick" and cycles.unit == "ticks" and cycles.value > 0
    assert stream.metric("kernel_cycles").value < cycles.value
    heap, stack = stream.metric("heap_used"), stream.metric("stack_used")
    assert 4096 <= heap.value <= stream.metric("heap_size").value
    assert 0 < stack.value < stream.metric("stack_size").value
    assert int(stream.layout["model_area"], 16) == 0x70000000


def test_cycle_counts_are_deterministic_under_icount(qemu, builds, passing, tmp_path):
    again = run(qemu, builds.get("cortex-m55"), tmp_path)
    for name in ("total_cycles", "kernel_cycles"):
        assert again.stream.metric(name).value == passing.stream.metric(name).value


def test_data_files_are_loaded_at_the_model_and_input_areas(qemu, builds, tmp_path):
    build = builds.get("cortex-m55")
    model, inputs = tmp_path / "model.bin", tmp_path / "input.bin"
    model.write_bytes(bytes(range(256)) * 2)
    inputs.write_bytes(b"\x5a" * 256)
    result = run(qemu, build, tmp_path / "run", data=[
        DataFile(model, build.area("model_area")[0]),
        DataFile(inputs, build.area("input_area")[0])])
    assert result.verdict.cause == "pass"
    assert result.stream.metric("model_area_head_crc32").value == zlib.crc32(bytes(range(256)))
    assert result.stream.metric("input_area_head_crc32").value == zlib.crc32(b"\x5a" * 256)
    assert "loader,file=" in (tmp_path / "run" / "command.txt").read_text()


def test_fault_is_classified_with_pc_and_address(qemu, builds, tmp_path):
    build = builds.get("cortex-m55", "EOR_SELFTEST_BEHAVIOUR=fault")
    result = run(qemu, build, tmp_path)
    assert result.outcome.exit_code == 64
    assert result.verdict.cause == "hard_fault" and result.verdict.status == "error"
    fault = result.stream.faults[0]
    text = next(s for s in build.sections if s.name == ".text")
    assert text.address <= fault.pc < text.address + text.size
    assert fault.address == 0x0C000000 and "PRECISERR" in fault.causes
    assert result.verdict.details["registers"]["pc"] == fault.pc
    assert "Hard fault: PC 0x" in result.outcome.transcript  # human line too


def test_deliberate_failure_is_fail_with_exit_code_one(qemu, builds, tmp_path):
    result = run(qemu, builds.get("cortex-m55", "EOR_SELFTEST_BEHAVIOUR=fail"), tmp_path)
    assert result.outcome.exit_code == 1
    assert result.verdict.cause == "fail"
    assert result.verdict.details["failed_checks"] == ["deliberate_failure"]


def _processes_running(path: Path) -> list[int]:
    """PIDs whose command line mentions `path`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if str(path).encode() in cmdline:
                found.append(int(entry.name))
    return found


def test_hang_is_killed_by_the_watchdog_and_no_qemu_is_left(qemu, builds, tmp_path):
    build = builds.get("cortex-m55", "EOR_SELFTEST_BEHAVIOUR=hang")
    result = run(qemu, build, tmp_path, deadline_s=30.0, idle_s=1.5)
    assert result.outcome.stopped_by == "no_output" and result.outcome.exit_code is None
    assert result.verdict.cause == "hang" and result.verdict.status == "timeout"
    assert result.outcome.seconds < 10
    assert "hanging on purpose" in result.outcome.transcript
    assert not Path(f"/proc/{result.outcome.pid}").exists()
    assert _processes_running(build.elf) == []


def test_deadline_stops_a_silent_run_too(qemu, builds, tmp_path):
    build = builds.get("cortex-m55", "EOR_SELFTEST_BEHAVIOUR=hang")
    result = run(qemu, build, tmp_path, deadline_s=1.5, idle_s=None)
    assert result.outcome.stopped_by == "deadline" and result.verdict.cause == "timeout"
    assert _processes_running(build.elf) == []


def test_stale_elf_is_detected_by_build_id(qemu, builds, tmp_path):
    current = builds.get("cortex-m55")
    other = builds.get("cortex-m55", "EOR_SELFTEST_BEHAVIOUR=fail")
    assert current.build_id != other.build_id
    result = run(qemu, other, tmp_path, expected_build_id=current.build_id)
    assert result.verdict.cause == "stale_firmware" and result.verdict.status == "error"
    assert result.verdict.details["reported"] == other.build_id


def test_semihosting_file_is_removed_after_the_roundtrip(passing):
    run_dir = passing.outcome.log_path.parent
    assert not (run_dir / "selftest-semihosting.txt").exists()
    assert os.path.getsize(run_dir / "transcript.log") > 0


def test_stack_overflow_is_caught_by_the_stack_limit(qemu, builds, tmp_path):
    result = run(qemu, builds.get("cortex-m55", "EOR_SELFTEST_BEHAVIOUR=stack"), tmp_path)
    assert result.outcome.exit_code == 64 and result.verdict.cause == "hard_fault"
    assert "STKOF" in result.stream.faults[0].causes
