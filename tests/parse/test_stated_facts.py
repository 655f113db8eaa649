"""Issue 25, second pass: facts a line states that had no field reach the result (log.stated),
Zephyr log lines are read like the runner lines they carry, and a status goes to the failure it
explains. Real fixtures where a log shows the line; otherwise the upstream format string, named.
"""

from __future__ import annotations

from orchestrator.parse.lines import ZEPHYR_LOG_FORMAT, split_line
from orchestrator.results import Kind


def test_runner_facts_without_a_field_are_stated(parsed):
    stated = parsed("et-docs-v0.5.0-1.log").log.stated
    assert (stated["method"], stated["methods"], stated["model_address"]) == (
        "forward", 1, "0x70000000"
    )
    assert stated["pmu_events"][0] == "ETHOSU_PMU_EXT0_RD_DATA_BEAT_RECEIVED"


def test_inference_count_and_time_lines_are_stated(parsed):
    assert parsed("imx93-cm33-runner-readme-1.log").log.stated["inferences_finished"] == 1
    assert parsed("et-docs-zephyr-alif-1.log").log.stated["inference_time"] == "30 ms"


def test_unity_counts_are_stated(parsed):
    unity = parsed("avh-getstarted-unity-1.log").log.stated["unity"]
    assert unity["summary"] == {"tests": 4, "failures": 1, "ignored": 0}


def test_an_elf_path_on_the_next_line_is_an_artifact_not_a_stated_fact(parsed):
    result = parsed("et-issue-7568-1.log")  # `Generated baremetal elf file:` then the path
    assert result.artifacts["elf"].endswith("/cmake-out/arm_executor_runner")
    assert result.log.stated == {}


def test_zephyr_log_lines_are_read_like_runner_lines(parsed):
    result = parsed("zingo-zephyr-hello-world-1.log")
    assert result.log.formats == [ZEPHYR_LOG_FORMAT]
    assert result.log.stated == {"method": "forward", "output_elements": 1, "platform": "zephyr"}
    assert result.classification.kind is Kind.INCOMPLETE  # `✓ Test PASSED` is not a completion
    assert "executed the model" in result.reason and result.log.unknown_count == 0


def test_zephyr_log_prefix_is_split_and_other_lines_are_not():
    line = split_line(3, "[00:00:00.567,890] <inf> program_loader: Method 'forward' loaded")
    assert (line.message, line.source, line.format) == (
        "Method 'forward' loaded", "program_loader", ZEPHYR_LOG_FORMAT
    )
    assert not line.is_et
    plain = split_line(4, "[00:00:00.567,890] not a log line")
    assert plain.message == plain.text and plain.format is None


# pytorch/executorch examples/arm/executor_runner/arm_executor_runner.cpp @ v1.4.1, lines
# 1196-1203: a BundleIO mismatch, then the verification status.
PREFIX = "E [executorch:arm_executor_runner.cpp:1201 verify_result()] "
BUNDLE_MISMATCH = [
    f"{PREFIX}Model output don't match expected BundleIO bpte ref data. rtol=0.010000 "
    "atol=0.010000",
    f"{PREFIX}TEST: BundleIO index[0] Test_result: FAIL",
    f"{PREFIX}Bundle verification failed with status 0x12",
]


def test_bundle_verification_status_explains_the_mismatch(result_of):
    result = result_of(BUNDLE_MISMATCH)
    details = result.classification.details
    assert result.classification.kind is Kind.OUTPUT_MISMATCH
    assert details["status_code"] == 0x12 and details["status_name"]
    assert result.comparison is not None and result.comparison.rtol == 0.01


def test_npu_status_dump_stays_with_the_npu_error(parsed):
    result = parsed("nxp-community-ethosu-invoke-1.log")
    details = result.classification.details
    assert result.classification.kind is Kind.NPU_ERROR
    assert (details["npu_status"], details["qread"], details["cmd_end_reached"]) == (0x804, 0, 0)
