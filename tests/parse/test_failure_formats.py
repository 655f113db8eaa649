# ruff: noqa: E501  (console lines are kept whole so they read like the real log)
"""Failure classes no copied transcript shows, fed as lines in the formats upstream prints.

Formats come from upstream sources (runtime/executor/method.cpp, EthosUBackend_Cortex_M.cpp,
arm_executor_runner.cpp, core_platform's HardFault handler, Zephyr's fault dump) and from this
project's firmware/platform/common/fault.c.
"""

from __future__ import annotations

from orchestrator.parse.result import result_from_facts
from orchestrator.parse.upstream import UpstreamLogParser
from orchestrator.results import Kind, RunResult, Status, validate

RUNNER_START = (
    "I [executorch:arm_executor_runner.cpp:760 runner_init()] PTE Model data loaded. Size: 5 bytes."
)
COMPLETE = "I [executorch:arm_executor_runner.cpp:1379 main()] Program complete, exiting."


def result_of(lines: list[str], host_timeout_s: float | None = None) -> RunResult:
    """Parse lines as one log and build its (schema-valid) RunResult."""
    parser = UpstreamLogParser()
    parser.feed_lines(lines)
    parser.facts.simulation.host_timeout_s = host_timeout_s
    result = result_from_facts(parser.finish())
    validate(result.to_dict())
    return result


def test_missing_operator_names_the_kernel():
    result = result_of(
        [
            RUNNER_START,
            "E [executorch:method.cpp:819 resolve_operator()] Missing operator: [29] aten::linear.out",
            "E [executorch:method.cpp:819 resolve_operator()] Missing operator: [31] aten::gelu.out",
            "E [executorch:method.cpp:1125 init()] There are 6 instructions don't have corresponding "
            "operator registered. See logs for details",
            "I [executorch:arm_executor_runner.cpp:781 runner_init()] Loading of method forward failed "
            "with status 0x14",
        ]
    )
    details = result.classification.details
    assert result.classification.kind is Kind.MISSING_KERNEL
    assert details["kernel"] == "aten::linear.out"
    assert details["kernels"] == ["aten::linear.out", "aten::gelu.out"]
    assert details["instructions_without_kernel"] == 6
    assert "aten::linear.out" in result.classification.next_step
    assert details["also"] == ["method_load_failure"]


def test_method_load_failure_names_the_status():
    result = result_of(
        [
            RUNNER_START,
            "I [executorch:arm_executor_runner.cpp:781 runner_init()] Loading of method forward failed "
            "with status 0x23",
        ]
    )
    assert result.classification.kind is Kind.METHOD_LOAD_FAILURE
    assert result.classification.details["status_code"] == 0x23
    assert result.classification.details["status_name"] == "InvalidProgram"
    assert "InvalidProgram" in result.classification.next_step


def test_core_platform_hard_fault_with_registers():
    result = result_of(
        [
            RUNNER_START,
            "Hard fault. irq=-13, pc=0x00012345, lr=0x00010001, xpsr=0x61000000, sp=0x20001000",
            "            cfsr=0x00008200 bfar=0x60000000 mmfar=0x00000000",
            "EXITTHESIM",
        ]
    )
    registers = result.classification.details["registers"]
    assert result.classification.kind is Kind.HARD_FAULT
    assert registers == {
        "irq": -13,
        "pc": 0x12345,
        "lr": 0x10001,
        "xpsr": 0x61000000,
        "sp": 0x20001000,
        "cfsr": 0x8200,
        "bfar": 0x60000000,
        "mmfar": 0,
    }
    assert "arm-none-eabi-addr2line" in result.classification.next_step
    assert "0x00012345" in result.classification.next_step


def test_our_firmware_fault_line():
    result = result_of(
        [
            "Bus fault: PC 0x0000abcd LR 0xffffffb9 xPSR 0x01000000 CFSR 0x00008200 "
            "HFSR 0x40000000 address 0x60000000"
        ]
    )
    details = result.classification.details
    assert (result.classification.kind, details["fault_type"]) == (Kind.HARD_FAULT, "bus")
    assert details["registers"]["pc"] == 0xABCD and details["registers"]["address"] == 0x60000000


def test_zephyr_fault_dump():
    result = result_of(
        [
            "I [executorch:main.cpp] Starting the model execution...",
            "E: ***** BUS FAULT *****",
            "E:   Precise data bus error",
            "E: r0/a1:  0x00000004  r1/a2:  0x00000000  r2/a3:  0x00000001",
            "E: Faulting instruction address (r15/pc): 0x1000a2c4",
            "E: >>> ZEPHYR FATAL ERROR 25: Unknown error on CPU 0",
        ]
    )
    details = result.classification.details
    assert result.classification.kind is Kind.HARD_FAULT
    assert details["fault_type"] == "bus fault"
    assert details["registers"] == {"r0": 4, "r1": 0, "r2": 1, "pc": 0x1000A2C4}


def test_npu_invocation_error():
    result = result_of(
        [
            RUNNER_START,
            "E [executorch:EthosUBackend_Cortex_M.cpp:116 execute()] Ethos-U invocation failed error (-1)",
            "F [executorch:arm_executor_runner.cpp:1241 run_model()] Execution of method forward failed "
            "with status 0x1",
        ]
    )
    assert result.classification.kind is Kind.NPU_ERROR
    assert result.classification.details["driver_status"] == -1
    assert "num_macs" in result.classification.next_step


def test_execution_failure_status():
    result = result_of(
        [
            RUNNER_START,
            "F [executorch:arm_executor_runner.cpp:1241 run_model()] Execution of method forward failed "
            "with status 0x12",
        ]
    )
    assert result.classification.kind is Kind.EXECUTION_FAILURE
    assert result.classification.details["status_name"] == "InvalidArgument"


def test_assertion_alone():
    result = result_of(
        [
            RUNNER_START,
            "F [executorch:tensor_util.h:12 check()] In function check(), assert failed (dim >= 0): bad dim",
        ]
    )
    assert result.classification.kind is Kind.ASSERTION
    assert result.classification.details == {"function": "check", "condition": "dim >= 0"}
    assert "dim >= 0" in result.classification.next_step


def test_newlib_zu_allocation_failure_keeps_what_it_can():
    result = result_of(
        [
            RUNNER_START,
            "E [executorch:memory_allocator.h:zu ()] Memory allocation failed: zuB requested (adjusted "
            "for alignment), zuB available",
        ]
    )
    details = result.classification.details
    assert result.classification.kind is Kind.ALLOC_FAILURE
    assert "requested_bytes" not in details and details["pool"] == "method_allocator"
    assert "unknown B requested" in result.classification.next_step


def test_bundleio_mismatch_is_a_fail_with_statistics():
    result = result_of(
        [
            RUNNER_START,
            "I [executorch:arm_executor_runner.cpp:1175 verify_result()] === Error stats for testset 0 ===",
            "I [executorch:arm_executor_runner.cpp:1176 verify_result()]  mean_absolute_error: 0.031250",
            "I [executorch:arm_executor_runner.cpp:1177 verify_result()]  max_absolute_error:  0.500000",
            "I [executorch:arm_executor_runner.cpp:1178 verify_result()]  mean_relative_error: 0.010000",
            "I [executorch:arm_executor_runner.cpp:1179 verify_result()]  max_relative_error:  0.250000",
            "E [executorch:arm_executor_runner.cpp:1198 verify_result()] Model output don't match "
            "expected BundleIO bpte ref data. rtol=0.010000 atol=0.010000",
            "E [executorch:arm_executor_runner.cpp:1201 verify_result()] TEST: BundleIO index[0] "
            "Test_result: FAIL",
            COMPLETE,
        ]
    )
    comparison = result.comparison
    assert result.status is Status.FAIL
    assert result.classification.kind is Kind.OUTPUT_MISMATCH
    assert (comparison.testset, comparison.passed) == (0, False)
    assert (comparison.mean_absolute_error, comparison.max_absolute_error) == (0.03125, 0.5)
    assert (comparison.mean_relative_error, comparison.max_relative_error) == (0.01, 0.25)
    assert (comparison.rtol, comparison.atol) == (0.01, 0.01)


def test_bundleio_pass_is_a_pass():
    result = result_of(
        [
            RUNNER_START,
            "I [executorch:arm_executor_runner.cpp:1193 verify_result()] TEST: BundleIO index[0] "
            "Test_result: PASS",
            COMPLETE,
        ]
    )
    assert result.status is Status.PASS and result.comparison.passed is True


def test_cycle_limit_stop():
    result = result_of(
        [RUNNER_START, "Info: Simulation is stopping. Reason: Cycle limit has been exceeded."]
    )
    assert result.classification.kind is Kind.CYCLE_LIMIT
    assert result.status is Status.TIMEOUT
    assert "after the runner started" in result.reason


def test_host_timeout_without_completion():
    result = result_of([RUNNER_START], host_timeout_s=30)
    assert result.classification.kind is Kind.TIMEOUT
    assert "30 s" in result.reason


def test_unrecognised_error_line_is_unknown_not_success():
    result = result_of(
        [RUNNER_START, "E [executorch:new_thing.cpp:1 f()] Something new broke", COMPLETE]
    )
    assert result.classification.kind is Kind.UNKNOWN
    assert "Something new broke" in result.reason


def test_qemu_refusing_to_start():
    result = result_of(
        [
            "qemu-system-arm: -device loader,file=model.pte,addr=0x60000000: Cannot load specified image "
            "model.pte",
        ]
    )
    assert result.classification.kind is Kind.LAUNCH_FAILURE
    assert result.versions.simulator == "qemu-system-arm"


def test_nothing_at_all_is_no_output():
    result = result_of([])
    assert result.classification.kind is Kind.NO_OUTPUT and result.status is Status.ERROR


def test_protocol_records_are_not_unknown_lines():
    result = result_of(["@@EOR1 begin app=runner platform=mps3-an547 *1a2b3c4d"])
    assert result.log.unknown_count == 0


def test_typed_outputs_of_every_printed_dtype():
    result = result_of(
        [
            "Output[0][0]: (char) -128",
            "Output[0][1]: (char) 127",
            "Output[1][0]: (bool) true  (0x1)",
            "Output[1][1]: (bool) false (0x0)",
            "Output[2][0]: (float) 0.000001",
            "Output[3]: Not Tensor",
        ]
    )
    char, boolean, floating, other = result.outputs
    assert (char.dtype, char.values, char.exact) == ("int8", [-128, 127], True)
    assert (boolean.dtype, boolean.values) == ("bool", [True, False])
    assert (floating.dtype, floating.values, floating.exact) == ("float32", [1e-06], False)
    assert other.not_tensor and other.values == []


def test_our_runner_abort_line_is_never_a_pass():
    result = result_of([RUNNER_START, "F [runner] ExecuTorch aborted", COMPLETE])
    assert result.classification.kind is Kind.UNKNOWN
    assert result.log.errors == ["F [runner] ExecuTorch aborted"]
    assert result.log.unknown_count == 0


def test_external_problem_and_completion_from_the_protocol():
    parser = UpstreamLogParser()
    parser.feed_lines([RUNNER_START])
    parser.facts.mark_complete()
    assert result_from_facts(parser.facts).status is Status.PASS
    parser.facts.add_problem(
        Kind.HARD_FAULT, "fault record", "@@EOR1 fault kind=bus", registers={"pc": 4}
    )
    result = result_from_facts(parser.facts)
    assert (result.classification.kind, result.classification.evidence) == (
        Kind.HARD_FAULT,
        ["@@EOR1 fault kind=bus"],
    )
    assert "0x00000004" in result.classification.next_step


def test_zephyr_and_driver_error_lines_are_kept():
    result = result_of(
        [
            "[00:00:00.010,000] <err> ethos_u: Failed to open device",
            "E: something the driver said",
            COMPLETE,
        ]
    )
    assert result.classification.kind is Kind.UNKNOWN
    assert len(result.log.errors) == 2


def test_run_fvp_green_verdict_never_overrides_an_unfinished_run():
    result = result_of(
        [
            RUNNER_START,
            "[backends/arm/scripts/run_fvp.sh] Simulation complete, 0",
            "Checking for problems in log:",
            "No problems found!",
        ]
    )
    assert result.classification.kind is Kind.INCOMPLETE
    assert result.reason.endswith("its verdict is not a pass)")
    assert result.simulation.wrapper_verdict == "No problems found!"


def test_semihosting_runner_files_and_input_mismatch():
    prefix = "I [executorch:arm_executor_runner.cpp:1300 main()]"
    result = result_of(
        [
            f"{prefix} Running executor with parameter:",
            f"{prefix}    arm_executor_runner",
            f"{prefix}    -m model.pte",
            f"{prefix} Reading pte model from file model.pte",
            f"{prefix} Reading input tensor 0 from file in0.bin",
            "E [executorch:arm_executor_runner.cpp:481 prepare_input_tensors()] input size (12) and "
            "tensor size (16) mismatch!",
        ]
    )
    assert result.artifacts["pte"] == "model.pte" and result.artifacts["input_file_0"] == "in0.bin"
    assert result.classification.kind is Kind.EXECUTION_FAILURE
    assert result.classification.details == {"input_bytes": 12, "tensor_bytes": 16}
    assert result.log.unknown_count == 0


def test_semihosting_output_files_and_other_allocation_failures():
    prefix = "I [executorch:arm_executor_runner.cpp:1000 main()]"
    result = result_of(
        [
            RUNNER_START,
            f"{prefix} Writing output to file: out-0.bin",
            f"{prefix} Writing output to file: out-1.bin",
            "F [executorch:arm_executor_runner.cpp:690 runner_init()] Could not allocate memory for "
            "memory planned buffer size 4096",
        ]
    )
    assert result.artifacts["output_file_0"] == "out-0.bin"
    assert result.artifacts["output_file_1"] == "out-1.bin"
    assert result.classification.kind is Kind.ALLOC_FAILURE
    assert result.classification.details["requested_bytes"] == 4096


def test_cmsis_style_fault_handler_line_and_register_lines():
    # The handler line and register layout quoted in issue 15 (CMSIS/vendor fault handlers).
    result = result_of(
        [
            RUNNER_START,
            "Exception caught by function BusFault_Handler",
            "IPSR : 0x00000005",
            "MSP : 0x2003FF60",
            "PC : 0x00012345",
        ]
    )
    details = result.classification.details
    assert (result.classification.kind, details["fault_type"]) == (Kind.HARD_FAULT, "bus")
    assert details["registers"] == {"ipsr": 5, "msp": 0x2003FF60, "pc": 0x12345}
    assert "0x00012345" in result.classification.next_step


def test_nonzero_application_exit_code_is_a_failure():
    result = result_of([RUNNER_START, "Application exit code: 3.", "EXITTHESIM"])
    assert result.classification.kind is Kind.EXECUTION_FAILURE
    assert result.simulation.application_exit_code == 3
    assert result.classification.details["exit_code"] == 3
