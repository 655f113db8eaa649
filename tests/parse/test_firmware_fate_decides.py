"""Issue 25, first defect class: once the firmware has printed, no launcher, simulator start-up
or build line can make the run "never started"; such a line is kept as a secondary finding.

No public log with both a launcher complaint and firmware output was found (see INDEX.md,
"Described, not saved"), so the logs here are spliced from real fixture lines: the launcher
line quoted in issue 25 (`sh: xterm: command not found`, the FVP wrapper failing to open a
terminal window), FVP start-up lines of et-issue-7568-1, the Ethos-U driver line of
imx93-cm33-runner-readme-1 and the fault handler dump of mbed-os-pr-11332-1.
"""

from __future__ import annotations

import pytest

from orchestrator.parse import result_from_facts
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import split_line
from orchestrator.results import Kind, Status
from orchestrator.results.summary_table import summary_rows, verdict

XTERM_MISSING = "sh: xterm: command not found"
TELNET_AND_BANNER = [
    "telnetterminal0: Listening for serial connection on port 5000",
    "",
    "    Ethos-U rev 136b7d75 --- Apr 12 2023 13:44:01",
    "    (C) COPYRIGHT 2019-2023 Arm Limited",
    "    ALL RIGHTS RESERVED",
    "",
]
NPU_INIT = "I: ethosu_init. base_address=0x4a900000"


@pytest.fixture
def busfault_run(lines_of):
    """The issue's log: launcher complaint, FVP start, NPU init, fault handler with registers."""
    return [XTERM_MISSING, *TELNET_AND_BANNER, NPU_INIT, *lines_of("mbed-os-pr-11332-1.log")]


def test_fault_after_a_launcher_complaint_is_the_verdict(busfault_run, result_of):
    result = result_of(busfault_run)
    classification = result.classification
    assert (result.status, classification.kind) == (Status.ERROR, Kind.HARD_FAULT)
    assert classification.details["registers"]["pc"] == 0x5276
    assert classification.details["registers"]["bfsr"] == 0x82
    assert "0x00005276" in classification.next_step
    assert XTERM_MISSING not in classification.evidence
    assert "launch_failure" not in classification.details.get("also", [])
    [secondary] = classification.details["secondary"]
    assert secondary["kind"] == "launch_failure" and secondary["line"] == XTERM_MISSING
    assert secondary["line_number"] == 1 and secondary["cause"] == "launcher_command_missing"
    assert "the firmware printed" in secondary["note"]


def test_table_shows_the_secondary_finding(busfault_run, result_of):
    result = result_of(busfault_run)
    rows = dict(summary_rows(result))
    assert rows["status"] == "error (hard_fault)"
    assert rows["also seen"].startswith(f"launch_failure at line 1 ({XTERM_MISSING})")
    assert verdict(result).startswith("ERROR (hard_fault): the CPU took a hard fault")


def test_the_launcher_line_may_come_after_the_firmware_output(busfault_run, result_of):
    lines = busfault_run
    moved = [*lines[1:], XTERM_MISSING]
    result = result_of(moved)
    assert result.classification.kind is Kind.HARD_FAULT
    assert result.classification.details["secondary"][0]["line_number"] == len(moved)


def test_a_completed_run_with_a_launcher_complaint_passes_and_keeps_it(lines_of, result_of):
    result = result_of([XTERM_MISSING, *lines_of("imx93-cm33-runner-readme-1.log")])
    assert (result.status, result.classification.kind) == (Status.PASS, Kind.SUCCESS)
    assert result.classification.details["secondary"][0]["line"] == XTERM_MISSING


def test_a_cut_run_with_a_launcher_complaint_is_incomplete_never_a_pass(lines_of, result_of):
    lines = lines_of("imx93-cm33-runner-readme-1.log")
    cut = [XTERM_MISSING, *lines[: lines.index("Program complete, exiting.")]]
    result = result_of(cut)
    assert result.classification.kind is Kind.INCOMPLETE and result.status is not Status.PASS
    assert result.classification.details["secondary"][0]["kind"] == "launch_failure"


def test_no_head_of_a_run_with_a_launcher_complaint_passes_before_completion(lines_of, result_of):
    lines = [XTERM_MISSING, *lines_of("imx93-cm33-runner-readme-1.log")]
    done = lines.index("Program complete, exiting.")
    passed = [cut for cut in range(len(lines) + 1) if result_of(lines[:cut]).status is Status.PASS]
    assert passed == list(range(done + 1, len(lines) + 1))


def test_npu_driver_output_alone_shows_the_firmware_started(result_of):
    result = result_of([XTERM_MISSING, *TELNET_AND_BANNER, NPU_INIT])
    assert result.classification.kind is Kind.INCOMPLETE
    assert result.classification.details["secondary"][0]["line"] == XTERM_MISSING


def test_without_firmware_output_the_launcher_line_still_decides(lines_of, result_of):
    result = result_of(lines_of("et-issue-22316-2.log"))
    assert result.classification.kind is Kind.LAUNCH_FAILURE
    assert "secondary" not in result.classification.details


def test_build_error_before_a_firmware_run_is_secondary(lines_of, result_of):
    cmake = lines_of("lp-issue-2422-1.log")[:2]
    assert cmake[0].startswith("CMake Error at")
    result = result_of([*cmake, *lines_of("imx93-cm33-runner-readme-1.log")])
    assert result.classification.kind is Kind.SUCCESS
    assert result.classification.details["secondary"][0]["kind"] == "build_failure"


def test_fvp_start_error_after_zephyr_booted_is_not_a_failed_start(lines_of, result_of):
    zephyr = lines_of("bujset-zephyr-fvp-2.log")
    boot = next(line for line in zephyr if "Booting Zephyr" in line)
    error = next(line for line in lines_of("lp-issue-2038-1.log") if line.startswith("Error:"))
    for lines in ([boot, error], [error, boot]):
        result = result_of(lines)
        assert result.classification.kind is Kind.INCOMPLETE
        assert result.classification.details["secondary"][0]["cause"] == "execstack"


@pytest.mark.parametrize("cause", ["launch_failure", "hard_fault"])
def test_a_failure_the_firmware_itself_reports_is_never_overruled(cause):
    # Our runner's end record can say the model area was empty (runner exit 10), which the
    # protocol path records as launch_failure: it is the firmware's own word, not a launcher's.
    facts = LogFacts()
    facts.mark("runner", 1)
    facts.log.lines = 2
    facts.add_problem(Kind(cause), "the firmware reported it", "end status=fail code=10")
    result = result_from_facts(facts)
    assert result.classification.kind is Kind(cause)
    assert "secondary" not in result.classification.details


def test_pre_run_problem_is_flagged_and_plain_problem_is_not():
    facts = LogFacts()
    launcher = facts.pre_run_problem(Kind.LAUNCH_FAILURE, "x", split_line(1, XTERM_MISSING))
    fault = facts.problem(Kind.HARD_FAULT, "y", split_line(2, "Hard fault"))
    assert launcher.pre_run and not fault.pre_run
    assert facts.firmware_printed()


def test_ethos_u_driver_errors_are_firmware_output(lines_of, result_of):
    # nxp-community-ethosu-invoke-1: the driver's `E: ... (ethosu_driver.c:542)` lines.
    driver = lines_of("nxp-community-ethosu-invoke-1.log")
    result = result_of(["docker: command not found", *driver])
    assert result.classification.kind is Kind.NPU_ERROR
    assert result.classification.details["secondary"][0]["cause"] == "launcher_command_missing"


def test_apt_error_lines_are_not_firmware_output(lines_of, result_of):
    # apt-get's `E: Unable to locate package %s` has the driver's `E: ` but not its
    # `(file.c:line)` suffix: the launcher line after it still means nothing started.
    result = result_of(["E: Unable to locate package xterm", *lines_of("et-issue-22316-2.log")])
    assert result.classification.kind is Kind.LAUNCH_FAILURE
    assert "secondary" not in result.classification.details
