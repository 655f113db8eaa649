"""Verdicts from process outcomes and parsed streams (synthetic, every branch)."""

from __future__ import annotations

from pathlib import Path

from orchestrator.protocol import encode_frame, parse_text
from orchestrator.sim.classify import verdict_of
from orchestrator.sim.process import ProcessOutcome

BUILD = "ab" * 20


def outcome(transcript: str, exit_code: int | None = 0,
            stopped_by: str | None = None) -> ProcessOutcome:
    return ProcessOutcome(pid=1, exit_code=exit_code, stopped_by=stopped_by, seconds=0.5,
                          transcript=transcript, log_path=Path("/tmp/x.log"))


def lines(*records: tuple[str, dict[str, object]]) -> str:
    return "\n".join(encode_frame(kind, fields) for kind, fields in records) + "\n"


BEGIN = ("begin", {"proto": 1, "app": "selftest", "platform": "p", "build": BUILD})
FAULT = ("fault", {"kind": "hard", "pc": "0x10000100", "lr": "0x10000001", "xpsr": "0x1000000",
                   "cfsr": "0x00010000", "hfsr": "0x40000000"})


def verdict(text: str, **kwargs):
    expected = kwargs.pop("expected", BUILD)
    return verdict_of(outcome(text, **kwargs), parse_text(text), expected)


def test_pass_needs_end_pass_exit_zero_and_every_record():
    text = lines(BEGIN, ("end", {"status": "pass", "code": 0, "records": 0}))
    assert verdict(text).cause == "pass"
    lost = lines(BEGIN, ("end", {"status": "pass", "code": 0, "records": 2}))
    assert verdict(lost).cause == "protocol_error"


def test_exit_status_must_agree_with_the_end_record():
    text = lines(BEGIN, ("end", {"status": "pass", "code": 0, "records": 0}))
    assert verdict(text, exit_code=1).cause == "protocol_error"


def test_fault_even_before_begin_is_a_hard_fault():
    found = verdict(lines(FAULT), exit_code=64)
    assert found.cause == "hard_fault" and "UNDEFINSTR" in found.summary
    assert found.details["registers"]["pc"] == 0x10000100


def test_stale_build_id_wins_over_what_the_old_firmware_did():
    text = lines(BEGIN, FAULT)
    assert verdict(text, exit_code=64, expected="cd" * 20).cause == "stale_firmware"


def test_simulator_error_without_records_is_a_launch_failure():
    found = verdict("qemu-system-arm: could not load kernel 'x.elf'\n", exit_code=1)
    assert found.cause == "launch_failure" and "could not load kernel" in found.evidence[0]
    assert verdict("", exit_code=1).cause == "no_output"


def test_stops_and_missing_end():
    text = lines(BEGIN)
    assert verdict(text, exit_code=None, stopped_by="deadline").cause == "timeout"
    assert verdict(text, exit_code=None, stopped_by="no_output").cause == "hang"
    assert verdict(text, exit_code=0).cause == "incomplete"


def test_failed_checks_are_named():
    text = lines(BEGIN, ("check", {"name": "crc32", "ok": 0, "got": 1, "expected": 2}),
                 ("end", {"status": "fail", "code": 1, "records": 1}))
    found = verdict(text, exit_code=1)
    assert found.cause == "fail" and found.details["failed_checks"] == ["crc32"]
