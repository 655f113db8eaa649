"""Our own protocol transcripts (recorded real QEMU runs) parse into the same RunResult."""

from __future__ import annotations

from pathlib import Path

from orchestrator.parse.result import parse_log, result_from_facts
from orchestrator.parse.upstream import parse_text
from orchestrator.protocol import encode_frame
from orchestrator.results import Kind, Status, validate

PROTOCOL = Path(__file__).resolve().parents[1] / "fixtures" / "protocol"


def test_selftest_pass():
    result = parse_log(PROTOCOL / "qemu-selftest-pass.log")
    validate(result.to_dict())
    assert (result.status, result.classification.kind) == (Status.PASS, Kind.SUCCESS)
    assert len(result.outputs) == 17 and all(t.exact for t in result.outputs)
    first = result.outputs[0]
    assert (first.dtype, first.shape, len(first.values)) == ("int32", [8, 8], 64)
    assert result.outputs[16].shape == [] and result.outputs[11].dtype == "float16"
    assert (result.cpu.total, result.cpu.source) == (6737, "systick")
    assert result.versions.extra["firmware_build_id"].startswith("f90f28a856f2")
    assert result.log.unknown == [
        "selftest on mps3-an547 (UART0 ok)",
        "selftest: 0 check(s) failed",
    ]


def test_selftest_fault_reported_once_with_registers():
    result = parse_log(PROTOCOL / "qemu-selftest-fault.log")
    classification = result.classification
    assert (result.status, classification.kind) == (Status.ERROR, Kind.HARD_FAULT)
    assert classification.details["registers"]["pc"] == 0x10000ABA
    assert classification.details["registers"]["address"] == 0x0C000000
    assert classification.evidence == [
        "Hard fault: PC 0x10000aba LR 0x1000038b xPSR 0x01000000 CFSR 0x00008200 "
        "HFSR 0x40000000 address 0x0c000000"
    ]
    assert "0x10000aba" in classification.next_step


def test_cut_before_the_end_record_is_incomplete():
    text = (PROTOCOL / "qemu-selftest-pass.log").read_text()
    result = result_from_facts(parse_text(text[: text.index("@@EOR1 layout")]))
    assert result.classification.kind is Kind.INCOMPLETE and result.status is Status.ERROR


def test_damaged_record_is_never_a_pass():
    text = (PROTOCOL / "qemu-selftest-pass.log").read_text()
    damaged = text.replace("b64=", "b64=X", 1)
    result = result_from_facts(parse_text(damaged))
    assert result.classification.kind is Kind.INCOMPLETE
    assert "lost or damaged" in result.reason


def test_runner_failure_end_record_uses_exit_code_and_note():
    text = "\n".join(
        [
            encode_frame(
                "begin", {"proto": 1, "app": "runner", "platform": "mps3-an547", "build": "ab"}
            ),
            encode_frame(
                "note", {"message": "a memory pool is too small", "et_error": "0x00000021"}
            ),
            encode_frame("end", {"status": "fail", "code": 12, "records": 1}),
        ]
    )
    result = result_from_facts(parse_text(text))
    details = result.classification.details
    assert result.classification.kind is Kind.ALLOC_FAILURE
    assert result.reason == "a memory pool is too small"
    assert (details["exit_code"], details["status_name"]) == (12, "MemoryAllocationFailed")
