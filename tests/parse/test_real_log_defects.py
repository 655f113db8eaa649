"""Issue 15: each defect class the parser had on real public logs, shown on such a log.

Every log here is a fixture under tests/fixtures/transcripts/ with its source row in INDEX.md;
expected values were read from the fixture files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.parse import parse_text, result_from_facts
from orchestrator.parse.classify import completed_at
from orchestrator.parse.lines import split_line
from orchestrator.results import Kind, RunResult, Status, validate

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "transcripts"
CPU_TIME_STOP = "Info: Simulation is stopping. Reason: CPU time has been exceeded."


def text_of(name: str) -> str:
    """A fixture's text, unchanged."""
    return (TRANSCRIPTS / name).read_text(encoding="utf-8")


def result_of_text(text: str) -> RunResult:
    """Parse text as a whole log into a schema-valid RunResult."""
    result = result_from_facts(parse_text(text))
    validate(result.to_dict())
    return result


def lines_before(name: str, needle: str) -> list[str]:
    """The fixture's lines up to (not including) the first line containing `needle`."""
    lines = text_of(name).splitlines()
    return lines[: next(i for i, line in enumerate(lines) if needle in line)]


# --- End of transmission is \x04 (or its U+2666 rendering), never an empty message ----------


def test_eot_rendered_as_a_diamond_is_end_of_transmission(parsed):
    result = parsed("bujset-zephyr-fvp-2.log")
    assert result.simulation.end_of_transmission
    assert split_line(1, "I [executorch:arm_executor_runner.cpp:451 main()] ♦").message == "♦"
    assert result_of_text("I [executorch:x.cpp:1 main()] \x04\n").simulation.end_of_transmission


def test_zephyr_empty_messages_mid_run_are_not_eot(parsed):
    result = parsed("et-docs-zephyr-alif-1.log")
    assert not result.simulation.end_of_transmission
    assert result.status is Status.PASS  # on `MobileNetV2 Demo Complete`, the sample's last word
    facts = parse_text(text_of("et-docs-zephyr-alif-1.log"))
    assert facts.markers["complete"] == 31 and completed_at(facts) == 31


def test_zephyr_log_cut_before_inference_with_a_stop_line_never_passes():
    cut = lines_before("et-docs-zephyr-alif-1.log", "--- Starting inference ---")
    assert cut[-1] == "I [executorch:main.cpp]"  # the empty message the old parser took as EOT
    result = result_of_text("\n".join([*cut, CPU_TIME_STOP]) + "\n")
    assert result.status is Status.TIMEOUT and result.classification.kind is Kind.CPU_TIME_LIMIT
    assert not result.simulation.end_of_transmission


# --- Success markers with a prefix ------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["bujset-zephyr-fvp-2.log", "zephyr-docs-hello-executorch-1.log",
             "cmsis-zephyr-executorch-readme-1.log"]
)
def test_prefixed_success_marker_completes_the_run(parsed, name):
    assert parsed(name).status is Status.PASS
    lines = text_of(name).splitlines()
    without = [line for line in lines if "SUCCESS:" not in line and not line.endswith("♦")]
    assert result_of_text("\n".join(without)).status is not Status.PASS


def test_completion_then_time_limit_is_still_a_pass(parsed):
    result = parsed("bujset-zephyr-fvp-2.log")
    assert result.simulation.stop_reason == "Simulated time has been exceeded"
    assert "then the simulator hit its time limit" in result.reason


# --- Runners without the ExecuTorch log prefix ------------------------------------------------


@pytest.mark.parametrize(
    "name", ["imx93-cm33-runner-readme-1.log", "lp-imx93-executorch-1.log",
             "lp-imx93-executorch-2.log"]
)
def test_vendor_plain_lines_are_runner_output(parsed, name):
    result = parsed(name)
    assert result.log.formats == []  # no ExecuTorch log prefix anywhere
    assert result.classification.kind is Kind.SUCCESS
    assert "UART0" not in result.classification.next_step
    (output,) = result.outputs
    assert output.dtype == "float32"


def test_vendor_raw_float_dump_is_decoded_exactly(parsed):
    (output,) = parsed("imx93-cm33-runner-readme-1.log").outputs
    assert (output.values, output.exact) == ([2.0], True)  # [0]=1073741824 is 0x40000000
    (output,) = parsed("lp-imx93-executorch-1.log").outputs
    assert output.values[:2] == [0.0, 0.6060954928398132] and output.values[2] < -1.1
    assert output.elided  # `... (1000 total values)` after three of numel=1000
    (header_only,) = parsed("lp-imx93-executorch-2.log").outputs
    assert header_only.values == [] and header_only.elided


# --- CMSIS / vendor fault handlers ------------------------------------------------------------


def test_mbed_fault_handler_with_register_lines(parsed):
    result = parsed("mbed-os-pr-11332-1.log")
    details = result.classification.details
    assert result.classification.kind is Kind.HARD_FAULT
    assert details["fault_type"] == "hard"
    registers = details["registers"]
    assert (registers["pc"], registers["lr"], registers["msp"], registers["psp"]) == (
        0x5276, 0x60F, 0x2002FF88, 0x20002EB0,
    )
    assert (registers["bfsr"], registers["hfsr"]) == (0x82, 0x40000000)
    assert registers["bfar"] == 0xDEADDEAD
    assert "0x00005276" in result.classification.next_step
    assert result.log.unknown == ["Context:"]  # terminal time stamps were removed first


def test_vendor_unhandled_exception_names_the_bus_fault(parsed):
    result = parsed("nxp-community-busfault-1.log")
    details = result.classification.details
    assert result.classification.kind is Kind.HARD_FAULT
    assert details["fault_type"] == "bus"  # ICSR 0x805: active exception 5
    registers = details["registers"]
    assert (registers["pc"], registers["lr"], registers["cfsr"]) == (0x0809EB58, 0x080C905B, 0x8200)
    assert registers["far"] == 0x000C0010
    assert result.reason == "the CPU took a bus fault at pc=0x0809eb58"


# --- No false "printed nothing / check UART0" -------------------------------------------------


@pytest.mark.parametrize(
    ("name", "what"),
    [
        ("lp-visualizing-ethosu-1.log", "a Vela compile report (64 NPU operators)"),
        ("et-deit-vela-summary-1.log", "a Vela compile report (898 NPU operators)"),
        ("cmsis-executorch-model-conversion-1.log", "a Vela compile report (12 NPU operators)"),
        ("et-docs-delegation-summary-1.log", "an ExecuTorch delegation summary (203 delegated"),
    ],
)
def test_reports_are_recognised_as_not_a_run(parsed, name, what):
    result = parsed(name)
    assert (result.status, result.classification.kind) == (Status.SKIPPED, Kind.NOT_A_RUN_LOG)
    assert what in result.reason and "UART0" not in result.classification.next_step


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("et-espressif-readme-1.log", "executed the model and printed 1 output"),
        ("zingo-zephyr-hello-world-1.log", "the firmware executed the model"),
        ("ultralytics-pr-24171-3.log", "the log ends after the simulator started"),
        ("et-issue-9356-1.log", "the firmware printed output"),
    ],
)
def test_output_or_a_cut_log_is_incomplete_not_silent(parsed, name, reason):
    result = parsed(name)
    assert result.classification.kind is Kind.INCOMPLETE and reason in result.reason
    assert "UART0" not in result.classification.next_step


def test_nothing_from_the_firmware_after_a_real_stop_is_still_no_output(parsed):
    result = parsed("et-issue-7568-1.log")
    assert "before the runner printed anything" in result.reason


# --- Launchers that never started the simulator -----------------------------------------------


def test_docker_missing_in_the_fvp_wrapper_is_a_launch_failure(parsed):
    result = parsed("et-issue-22316-2.log")
    details = result.classification.details
    assert result.classification.kind is Kind.LAUNCH_FAILURE
    assert (details["cause"], details["detail"]) == ("launcher_command_missing", "docker")
    assert result.classification.evidence[0] == "docker: command not found"
    assert "not a pass" in result.reason and "docker" in result.classification.next_step


def test_a_failed_build_is_not_a_silent_run(parsed):
    result = parsed("lp-issue-2422-1.log")
    assert result.classification.kind is Kind.BUILD_FAILURE
    assert result.reason.startswith("CMake failed at /home/dockeruser/executorch/arm_test/")


# --- Unity results inside firmware ------------------------------------------------------------


def test_unity_failure_wins_over_the_simulator_stop(parsed):
    result = parsed("avh-getstarted-unity-1.log")
    details = result.classification.details
    assert (result.status, result.classification.kind) == (Status.FAIL, Kind.TEST_FAILURE)
    assert (details["tests"], details["failures"], details["ignored"]) == (4, 1, 0)
    assert details["failed_tests"] == [
        {
            "test": "test_my_sum_fail",
            "where": "C:/Users/jonant01/git/VHT-GetStarted/basic/main.c:38",
            "message": "Expected 2 Was 0",
        }
    ]
    assert result.simulation.stop_reason == "Cycle limit has been exceeded"
    assert result.versions.simulator_version == "Fast Models 11.16.24 (Nov  4 2021)"
    assert result.log.unknown_count == 0


def test_unity_counts_every_failed_test(parsed):
    result = parsed("unity-issue-626-1.log")
    details = result.classification.details
    assert (details["tests"], details["failures"], details["ignored"]) == (5, 3, 1)
    assert [entry["test"] for entry in details["failed_tests"]] == [
        "test_qu_float_process_2", "test_qu_float_process_3", "test_add",
    ]
    assert details["failed_tests"][0]["message"] == "Expected 0 Was -1"
    assert result.reason.startswith("3 of 5 unit tests failed")


def test_unity_without_failures_is_a_completion():
    lines = text_of("avh-getstarted-unity-1.log").splitlines()
    passing = [line for line in lines if ":FAIL:" not in line]
    passing = [line.replace("4 Tests 1 Failures", "3 Tests 0 Failures") for line in passing]
    passing = [line if line != "FAIL" else "OK" for line in passing]
    result = result_of_text("\n".join(passing))
    assert result.status is Status.PASS


# --- Numbers ----------------------------------------------------------------------------------


def test_untyped_integer_outputs_keep_their_dtype(parsed):
    result = parsed("et-docs-v0.4.0-add-1.log")
    (output,) = result.outputs
    assert (output.dtype, output.exact, output.values) == ("int32", True, [2, 2, 2, 2, 2])
    assert all(isinstance(value, int) for value in output.values)
    assert result.simulation.application_exit_code == 0
    assert parsed("et-docs-v0.1.0-1.log").simulation.application_exit_code == 0


def test_zephyr_tensor_dumps_are_outputs(parsed):
    (output,) = parsed("zephyr-docs-hello-executorch-1.log").outputs
    assert (output.index, output.dtype, output.values) == (0, "float32", [4.0] * 5)
    assert not output.elided
    (output,) = parsed("cmsis-zephyr-executorch-readme-1.log").outputs
    assert (output.dtype, output.values) == ("float32", [2.0])


def test_vela_summary_figures(parsed):
    deit = parsed("et-deit-vela-summary-1.log").vela
    assert (deit.sram_used_kib, deit.dram_used_kib) == (1291.80, 5289.91)
    assert deit.design_peak_bandwidth_gbs == {"sram": 29.80, "dram": 11.18}
    lp = parsed("lp-visualizing-ethosu-1.log").vela
    assert lp.network_tops_per_s == 0.12
    assert lp.average_bandwidth_gbs == {"sram": 7.21}
    assert lp.bandwidth_mb_per_batch == {
        "sram": {"input": 15.49, "weight": 11.87, "output": 6.66, "total": 35.65,
                 "total_per_inference": 35.65}
    }
    cmsis = parsed("cmsis-executorch-vela-3.log").vela
    assert (cmsis.original_weights_kib, cmsis.encoded_weights_kib) == (0.0, 0.0)
    assert cmsis.average_bandwidth_gbs == {"sram": 0.24, "offchip_flash": 0.05}
    conversion = parsed("cmsis-executorch-model-conversion-1.log").vela
    assert conversion.design_peak_bandwidth_gbs == {"sram": 3.73, "offchip_flash": 0.47}


def test_delegation_counts(parsed):
    delegation = parsed("et-docs-delegation-summary-1.log").delegation
    assert (delegation.subgraphs, delegation.delegated_nodes, delegation.non_delegated_nodes) == (
        2, 203, 4,
    )


def test_peak_temp_allocator_is_the_temp_pool(parsed):
    pools = parsed("bujset-zephyr-fvp-2.log").memory.pools
    assert (pools["temp_allocator"].used, pools["temp_allocator"].size) == (0, 2048)
    assert (pools["method_allocator"].used, pools["method_allocator"].size) == (344, 512)
    assert "peak_temp_allocator" not in pools


def test_simulated_time_is_not_read_from_a_systemc_report_stamp(parsed):
    # `[warning ][main@0][01 ns]` after a 30 s --simlimit stop: the stamp is not the run's time
    assert parsed("bujset-zephyr-fvp-2.log").simulation.simulated_time is None


def test_newlib_zu_breakage_is_explained(parsed):
    result = parsed("et-issue-13038-1.log")
    assert result.log.formats == ["newlib-zu"]
    assert "newlib-nano" in result.classification.details["log_note"]
    assert "%lu" in result.classification.next_step and "'zu'" in result.reason


def test_zephyr_builds_get_kconfig_advice():
    # The same PR thread: the user's west build + FVP start (Zephyr evidence), then the
    # allocation failure they reported from that build.
    text = text_of("ultralytics-pr-24171-3.log") + text_of("ultralytics-pr-24171-1.log")
    result = result_of_text(text)
    step = result.classification.next_step
    assert result.classification.kind is Kind.ALLOC_FAILURE
    assert "CONFIG_EXECUTORCH_METHOD_ALLOCATOR_POOL_SIZE=<bytes>" in step
    assert "ET_ARM_BAREMETAL" not in step


def test_an_allocation_failure_of_unknown_platform_names_both_settings(parsed):
    step = parsed("ultralytics-pr-24171-1.log").classification.next_step
    assert "-DET_ARM_BAREMETAL_METHOD_ALLOCATOR_POOL_SIZE=<bytes>" in step
    assert "CONFIG_EXECUTORCH_METHOD_ALLOCATOR_POOL_SIZE=<bytes>" in step


def test_board_cpu_cycles_are_kept(parsed):
    cpu = parsed("et-espressif-readme-1.log").cpu
    assert cpu.total == 49545 and "ESP32" in cpu.source
