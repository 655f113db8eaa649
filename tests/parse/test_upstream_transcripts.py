"""Every copied upstream transcript parses to the facts its INDEX.md row describes.

Expected numbers were read from the transcript files themselves.
"""

from __future__ import annotations

import pytest

from orchestrator.results import PRINTED_FLOAT_PRECISION, Kind, Status, validate
from orchestrator.results.model import FVP_ETHOS_U_VERSION

ETHOSU_FVP_BANNER = "rev 136b7d75 (Apr 12 2023 13:44:01)"


def test_every_transcript_is_covered_and_indexed(transcripts_dir):
    files = sorted(path.name for path in transcripts_dir.glob("*.log"))
    index = (transcripts_dir / "INDEX.md").read_text()
    assert len(files) == len(CLASSIFIED) >= 34
    assert all(f"| {name} |" in index for name in files)
    covered = {name for name, _ in CLASSIFIED}
    assert covered == set(files)


CLASSIFIED = [
    ("et-docs-v0.1.0-1.log", Kind.SUCCESS),
    ("et-docs-v0.3.0-1.log", Kind.SUCCESS),
    ("et-docs-v0.5.0-1.log", Kind.SUCCESS),
    ("bujset-intro-zephyr-1.log", Kind.SUCCESS),
    ("et-issue-9356-1.log", Kind.INCOMPLETE),
    ("lp-visualizing-ethosu-2.log", Kind.INCOMPLETE),
    ("et-pr-16580-1.log", Kind.INCOMPLETE),
    # A Vela report is not a run: not "the runner printed nothing, check UART0".
    ("lp-visualizing-ethosu-1.log", Kind.NOT_A_RUN_LOG),
    ("cmsis-executorch-vela-3.log", Kind.NOT_A_RUN_LOG),
    ("et-issue-7568-1.log", Kind.CPU_TIME_LIMIT),
    ("et-issue-7177-3.log", Kind.ALLOC_FAILURE),
    ("ultralytics-pr-24171-2.log", Kind.ALLOC_FAILURE),
    ("et-issue-22316-1.log", Kind.LAUNCH_FAILURE),
    ("lp-issue-2038-1.log", Kind.LAUNCH_FAILURE),
    # Added for issue 15 (real logs the parser was not developed against; INDEX.md rows 36-58)
    ("bujset-zephyr-fvp-2.log", Kind.SUCCESS),
    ("et-docs-zephyr-alif-1.log", Kind.SUCCESS),
    ("zephyr-docs-hello-executorch-1.log", Kind.SUCCESS),
    ("cmsis-zephyr-executorch-readme-1.log", Kind.SUCCESS),
    ("imx93-cm33-runner-readme-1.log", Kind.SUCCESS),
    ("lp-imx93-executorch-1.log", Kind.SUCCESS),
    ("lp-imx93-executorch-2.log", Kind.SUCCESS),
    ("et-docs-v0.4.0-add-1.log", Kind.SUCCESS),
    ("et-espressif-readme-1.log", Kind.INCOMPLETE),
    ("et-issue-13038-1.log", Kind.INCOMPLETE),
    ("zingo-zephyr-hello-world-1.log", Kind.INCOMPLETE),
    ("ultralytics-pr-24171-3.log", Kind.INCOMPLETE),
    ("avh-getstarted-unity-1.log", Kind.TEST_FAILURE),
    ("unity-issue-626-1.log", Kind.TEST_FAILURE),
    ("mbed-os-pr-11332-1.log", Kind.HARD_FAULT),
    ("nxp-community-busfault-1.log", Kind.HARD_FAULT),
    ("et-issue-22316-2.log", Kind.LAUNCH_FAILURE),
    ("lp-issue-2422-1.log", Kind.BUILD_FAILURE),
    ("et-issue-9491-1.log", Kind.ALLOC_FAILURE),
    ("ultralytics-pr-24171-1.log", Kind.ALLOC_FAILURE),
    ("et-deit-vela-summary-1.log", Kind.NOT_A_RUN_LOG),
    ("cmsis-executorch-model-conversion-1.log", Kind.NOT_A_RUN_LOG),
    ("et-docs-delegation-summary-1.log", Kind.NOT_A_RUN_LOG),
    # Added for issue 25 (INDEX.md row 59)
    ("nxp-community-ethosu-invoke-1.log", Kind.NPU_ERROR),
]


@pytest.mark.parametrize(("name", "kind"), CLASSIFIED)
def test_classification_and_schema(parsed, name, kind):
    result = parsed(name)
    assert result.classification.kind is kind
    assert result.classification.next_step
    assert "{" not in result.classification.next_step
    validate(result.to_dict())
    assert result.artifacts["transcript"].endswith(name)


def test_v010_softmax_old_prefix_float_outputs(parsed):
    result = parsed("et-docs-v0.1.0-1.log")
    assert result.log.formats == ["no-bracket"]
    assert result.memory.pte_size == 960
    assert result.memory.planned_buffers == [32]
    (output,) = result.outputs
    assert output.values == [0.5, 0.5, 0.5, 0.5]
    assert (output.dtype, output.exact, output.precision) == (None, False, PRINTED_FLOAT_PRECISION)
    assert output.indices is None and not output.elided
    assert result.versions.extra[FVP_ETHOS_U_VERSION] == ETHOSU_FVP_BANNER
    assert result.simulation.stop_reason == "CPU time has been exceeded"
    # The time limit came after `Application exit code: 0.` and EXITTHESIM: still a pass.
    assert result.status is Status.PASS and "time limit" in result.reason
    assert result.log.unknown_count == 0


def test_v030_mv2_delegated_elided_outputs(parsed):
    result = parsed("et-docs-v0.3.0-1.log")
    assert result.log.formats == ["no-bracket"]
    assert result.memory.pte_size == 4556832
    assert result.memory.planned_buffers == [752640]
    (output,) = result.outputs
    assert output.indices == [0, 1, 2, 996, 997, 998, 999]
    assert output.values == [-0.639322, 0.169232, -0.451286, 0.150429, -0.488894, 0.037607, 1.20343]
    assert output.elided
    # The doc removed the EOT character and left the line empty: an empty message is not EOT,
    # the pass rests on `Program complete, exiting.`
    assert not result.simulation.end_of_transmission and result.simulation.completed
    assert result.status is Status.PASS
    assert result.log.unknown_count == 0


def test_v050_perf_monitor_block_and_memory(parsed):
    result = parsed("et-docs-v0.5.0-1.log")
    assert result.log.formats == ["bracket", "no-bracket"]  # hand-assembled doc sample
    npu = result.npu
    assert (npu.inferences, npu.cycles, npu.event_source) == (1, 5920305, "runner event list")
    assert [(c.index, c.value, c.event) for c in npu.counters] == [
        (0, 359921, "ETHOSU_PMU_EXT0_RD_DATA_BEAT_RECEIVED"),
        (1, 0, "ETHOSU_PMU_EXT1_RD_DATA_BEAT_RECEIVED"),
        (2, 0, "ETHOSU_PMU_EXT0_WR_DATA_BEAT_WRITTEN"),
        (3, 503, "ETHOSU_PMU_NPU_IDLE"),
    ]
    cpu = result.cpu
    assert (cpu.total, cpu.operators_total, cpu.npu_wait) == (6925114, 1498202, 729)
    assert cpu.per_operator == {"ethos-u": 1498202}
    assert (cpu.cpu_ratio_percent, cpu.npu_ratio_percent) == (99.99, 0.01)
    assert "not timing" in cpu.note and "FPGA" in cpu.source
    memory = result.memory
    assert (memory.pte_size, memory.pte_loaded_size) == (4425968, 4425968)
    assert (memory.pools["method_allocator"].used, memory.pools["method_allocator"].size) == (
        1355722,
        62914560,
    )
    assert (memory.pools["temp_allocator"].used, memory.pools["temp_allocator"].size) == (
        0,
        1048576,
    )
    assert memory.allocations == {
        "method_allocator_planned": 752640,
        "method_allocator_loaded": 966,
        "method_allocator_input": 602116,
        "method_allocator_executor": 0,
    }
    (output,) = result.outputs
    assert output.values[0] == -0.749744 and output.values[-1] == 1.576386
    assert output.indices[-1] == 999
    assert result.status is Status.PASS


def test_9356_truncated_pmu_block(parsed):
    result = parsed("et-issue-9356-1.log")
    assert result.npu.cycles == 411
    assert [(c.index, c.value, c.event) for c in result.npu.counters] == [(0, 6, None)]
    cpu = result.cpu
    assert (cpu.total, cpu.operators_total, cpu.npu_wait) == (2585, 0, 256)
    assert cpu.per_operator == {"ethos-u": 0}
    assert (cpu.cpu_ratio_percent, cpu.npu_ratio_percent) == (90.10, 9.90)
    assert result.status is Status.ERROR  # truncated: no completion marker, never a pass


def test_u85_pmu_fragment_five_counters(parsed):
    result = parsed("lp-visualizing-ethosu-2.log")
    assert result.npu.cycles == 4738932
    assert [c.value for c in result.npu.counters] == [1447178, 420661, 0, 0, 130]
    assert [c.index for c in result.npu.counters] == [0, 1, 2, 3, 4]


def test_vela_summary_u85(parsed):
    vela = parsed("lp-visualizing-ethosu-1.log").vela
    assert (vela.accelerator, vela.system_config, vela.memory_mode) == (
        "Ethos_U85_128",
        "Ethos_U85_SYS_DRAM_Mid",
        "Sram_Only",
    )
    assert (vela.clock_mhz, vela.sram_used_kib) == (1000.0, 5178.77)
    assert (vela.cpu_operators, vela.npu_operators, vela.macs) == (0, 64, 300836992)
    assert (vela.npu_cycles, vela.total_cycles) == (4832315, 4942076)
    assert vela.access_cycles == {
        "sram": 1168037,
        "dram": 0,
        "onchip_flash": 0,
        "offchip_flash": 0,
    }
    assert (vela.inference_time_ms, vela.inferences_per_second) == (4.94, 202.34)


def test_vela_per_operator_table_and_summary(parsed):
    result = parsed("cmsis-executorch-vela-3.log")
    vela = result.vela
    assert len(vela.per_operator) == 11
    first, third, last = vela.per_operator[0], vela.per_operator[2], vela.per_operator[-1]
    assert (first["original_operator"], first["op_cycles"], first["name"]) == (
        "Transpose",
        32,
        "#70",
    )
    assert (third["nng_operator"], third["offflash_ac"], third["peak_staging"]) == (
        "Add",
        16,
        66.67,
    )
    assert third["name"] == "tosa_transpose_default_1_int32"
    assert last["name"] == "tosa_transpose_default_2"
    assert (vela.accelerator, vela.memory_mode, vela.clock_mhz) == (
        "Ethos_U55_128",
        "Shared_Sram",
        500.0,
    )
    assert (vela.npu_cycles, vela.total_cycles, vela.npu_operators) == (327, 328, 11)
    assert vela.access_cycles["offchip_flash"] == 32 and vela.access_cycles["sram"] == 20
    assert (vela.sram_used_kib, vela.offchip_flash_used_kib) == (0.14, 0.03)
    assert vela.inferences_per_second == 1524390.24
    assert result.log.unknown_count == 0


def test_zephyr_tutorial_int_outputs_and_run_fvp_trailer(parsed):
    result = parsed("bujset-intro-zephyr-1.log")
    (output,) = result.outputs
    assert (output.dtype, output.exact, output.values) == ("int32", True, [2, 2, 2, 2, 2])
    assert result.simulation.stop_reason == "Simulation stopped by user"
    assert result.simulation.wrapper_exit_code == 0
    assert result.simulation.wrapper_verdict == "No problems found!"
    assert result.status is Status.PASS
    assert result.log.unknown_count == 0


def test_7568_semihosting_timeout(parsed):
    result = parsed("et-issue-7568-1.log")
    assert result.status is Status.TIMEOUT
    assert "before the runner printed anything" in result.reason
    assert result.memory.image_sections == {"text": 203592, "data": 126922636, "bss": 33540}
    assert result.artifacts["elf"].endswith("cmake-out/arm_executor_runner")
    assert result.target.name == "ethos-u55-128"
    assert result.target.options == {"num_macs": 128}
    assert result.versions.simulator == "FVP_Corstone_SSE-300_Ethos-U55"
    # `[warning ][main@0][1300 ns] Simulation stopped by user` is a SystemC report stamp, not
    # the simulated time of the run (bujset-zephyr-fvp-2 stops after 30 s and prints `[01 ns]`).
    assert result.simulation.simulated_time is None
    assert result.outputs == [] and result.log.unknown_count == 0


def test_7177_allocation_failure_root_cause(parsed):
    result = parsed("et-issue-7177-3.log")
    details = result.classification.details
    assert (details["requested_bytes"], details["available_bytes"]) == (1785600, 1024)
    assert details["pool"] == "method_allocator" and details["pool_inferred"] is True
    assert details["also"] == ["assertion", "method_load_failure"]
    assert "ET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE" in result.classification.next_step
    evidence = result.classification.evidence
    assert evidence[0].endswith("1785600B requested (adjusted for alignment), 1024B available")
    assert any("failed with status 0x21" in line for line in evidence)
    assert any("assert failed: hasValue_" in line for line in evidence)
    assert result.memory.pools["method_allocator"].size == 1024
    assert result.memory.pte_size == 175008
    assert result.log.unknown == ["I [executorch:arm_executor_runner.cpp:325] BLINK"]
    assert len(result.log.errors) == 3


def test_ultralytics_scratch_buffer_from_temp_allocator(parsed):
    result = parsed("ultralytics-pr-24171-2.log")
    details = result.classification.details
    assert (details["requested_bytes"], details["available_bytes"]) == (8197520, 2000)
    assert (details["pool"], details["pool_inferred"]) == ("temp_allocator", False)
    assert "ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE" in result.classification.next_step
    assert result.log.formats == ["bracket-function"]


def test_22316_false_green_is_a_launch_failure(parsed):
    result = parsed("et-issue-22316-1.log")
    assert result.status is Status.ERROR
    assert result.simulation.wrapper_verdict == "No problems found!"
    assert result.simulation.wrapper_exit_code == 0
    assert result.versions.simulator == "FVP_Corstone_SSE-300_Ethos-U55"
    assert "cannot execute binary file" in result.classification.evidence[0]
    assert "not a pass" in result.reason


def test_2038_executable_stack_launch_failure(parsed):
    result = parsed("lp-issue-2038-1.log")
    assert result.classification.details["fvp_error"] == "E549"
    assert "GLIBC_TUNABLES=glibc.rtld.execstack=2" in result.classification.next_step
    assert result.versions.simulator == "FVP_Corstone_SSE-300_Ethos-U55"


def test_16580_log_mem_status_block(parsed):
    result = parsed("et-pr-16580-1.log")
    memory = result.memory
    assert (memory.pte_size, memory.pte_loaded_size) == (10208, 10208)
    assert (
        memory.pools["input_file_allocator"].used,
        memory.pools["input_file_allocator"].size,
    ) == (
        10976,
        62914560,
    )
    assert (memory.pools["method_allocator"].used, memory.pools["method_allocator"].size) == (
        5433,
        62914560,
    )
    assert (memory.pools["temp_allocator"].used, memory.pools["temp_allocator"].size) == (
        None,
        2097152,
    )
    assert memory.allocations == {
        "method_allocator_planned": 2560,
        "method_allocator_loaded": 2857,
        "method_allocator_input": 16,
        "method_allocator_executor": 0,
    }
