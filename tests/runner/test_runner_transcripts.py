"""Host-side judgement of real runner transcripts (tests/fixtures/runner, see README.md)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.protocol import parse_text
from orchestrator.results import Classification, Kind, RunResult, Simulation, Status
from orchestrator.runner.failure_causes import check_nonce, explain_exit
from orchestrator.runner.metrics import pools

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "runner"
PASS_NONCE = 1409066060


def result_with(status: Status, exit_code: int) -> RunResult:
    return RunResult(status=status, reason="-", classification=Classification(
        kind=Kind.UNKNOWN, summary="-", next_step="-"),
        simulation=Simulation(exit_code=exit_code),
        artifacts={"transcript": "t.log", "command": "command.txt"})


def test_passing_transcript_reports_output_pools_and_nonce():
    stream = parse_text((FIXTURES / "qemu-add-pass.log").read_text())
    assert stream.complete and stream.end.status == "pass"
    (tensor,) = stream.tensors.values()
    assert tensor.dtype == "float32" and tensor.shape == (1, 4, 8, 8)
    memory = pools(stream, None)
    assert memory.pools["method_pool"].used == 3336
    assert memory.pools["temp_pool"].size == 2 * 1024 * 1024
    assert memory.pte_size == 1088 and memory.allocations["planned"] == 3072
    result = result_with(Status.PASS, 0)
    assert check_nonce(result, stream, PASS_NONCE) is result


def test_wrong_nonce_turns_a_pass_into_an_error():
    stream = parse_text((FIXTURES / "qemu-add-pass.log").read_text())
    checked = check_nonce(result_with(Status.PASS, 0), stream, PASS_NONCE + 1)
    assert checked.status is Status.ERROR
    assert "stale or misplaced input area" in checked.reason


def test_missing_input_area_is_explained_with_the_runner_message():
    stream = parse_text((FIXTURES / "qemu-no-input-area.log").read_text())
    assert stream.end.code == 10
    explained = explain_exit(result_with(Status.FAIL, 10), stream, "add")
    assert explained.status is Status.ERROR
    assert explained.classification.kind is Kind.LAUNCH_FAILURE
    assert "input area has no inputs (was the input file loaded?)" in explained.reason
    assert "command.txt" in explained.classification.next_step
