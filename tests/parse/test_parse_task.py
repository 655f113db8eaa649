"""`invoke parse` end to end in real subprocesses: JSON that validates, table, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.results import validate

REPO = Path(__file__).resolve().parents[2]


def invoke_parse(*args: str) -> subprocess.CompletedProcess[str]:
    """Run `invoke parse ...` from the repository root."""
    return subprocess.run(
        [sys.executable, "-m", "invoke", "parse", *args],
        cwd=REPO,
        text=True,
        capture_output=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("name", "status", "kind", "exit_code"),
    [
        ("et-docs-v0.5.0-1.log", "pass", "success", 0),
        ("et-issue-22316-1.log", "error", "launch_failure", 1),
        ("et-issue-7568-1.log", "timeout", "cpu_time_limit", 1),
    ],
)
def test_json_output_validates(name, status, kind, exit_code):
    done = invoke_parse(f"tests/fixtures/transcripts/{name}", "--json")
    assert done.returncode == exit_code, done.stderr
    document = json.loads(done.stdout)
    validate(document)
    assert (document["status"], document["classification"]["kind"]) == (status, kind)
    assert document["source"] == "upstream-log"


def test_table_and_verdict_for_a_failure():
    done = invoke_parse("tests/fixtures/transcripts/ultralytics-pr-24171-2.log")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].split()[:3] == ["status", "error", "(alloc_failure)"]
    verdict = " ".join(done.stdout.split())
    assert (
        "ERROR (alloc_failure): the Ethos-U scratch buffer (8197520 B) did not fit in "
        "temp_allocator (2000 B available)" in verdict
    )
    assert "next: the temp_allocator pool is too small" in verdict


def test_target_labels_counters_when_the_log_printed_no_event_list():
    done = invoke_parse(
        "tests/fixtures/transcripts/lp-visualizing-ethosu-2.log",
        "--json",
        "--target",
        "ethos-u85-128",
    )
    npu = json.loads(done.stdout)["npu"]
    assert npu["event_source"].startswith("target catalogue")
    assert [c["event"] for c in npu["counters"]][:2] == [
        "ETHOSU_PMU_SRAM_RD_DATA_BEAT_RECEIVED",
        "ETHOSU_PMU_SRAM_WR_DATA_BEAT_WRITTEN",
    ]


def test_a_directory_is_one_table_of_every_log():
    done = invoke_parse("tests/fixtures/transcripts")
    assert done.returncode == 1, done.stderr  # not every log passed
    logs = sorted(path.name for path in (REPO / "tests/fixtures/transcripts").glob("*.log"))
    rows = [line.split() for line in done.stdout.splitlines()]
    assert rows[0][:4] == ["log", "status", "kind", "reason"]
    named = [row[0] for row in rows[1:] if row and row[0].endswith(".log")]
    assert named == logs
    by_name = {row[0]: row[1:3] for row in rows[1:] if row and row[0].endswith(".log")}
    assert by_name["avh-getstarted-unity-1.log"] == ["fail", "test_failure"]
    assert by_name["et-docs-v0.5.0-1.log"] == ["pass", "success"]
    assert done.stdout.splitlines()[-1].startswith(f"{len(logs)} logs: ")


def test_a_directory_as_json_is_a_list_of_valid_results(tmp_path):
    for name in ("et-docs-v0.3.0-1.log", "zephyr-docs-hello-executorch-1.log"):
        source = REPO / "tests/fixtures/transcripts" / name
        (tmp_path / name).write_bytes(source.read_bytes())
    (tmp_path / "notes.md").write_text("not a log")
    done = invoke_parse(str(tmp_path), "--json")
    assert done.returncode == 0, done.stderr  # both logs passed
    documents = json.loads(done.stdout)
    assert [Path(entry["log"]).name for entry in documents] == [
        "et-docs-v0.3.0-1.log",
        "zephyr-docs-hello-executorch-1.log",
    ]
    for entry in documents:
        validate(entry["result"])
        assert entry["result"]["status"] == "pass"


def test_an_empty_directory_is_one_line_with_next_step(tmp_path):
    done = invoke_parse(str(tmp_path))
    assert done.returncode == 2
    assert "holds no .log or .txt file" in done.stderr and "next: " in done.stderr


def test_missing_log_is_one_line_with_next_step(tmp_path):
    done = invoke_parse(str(tmp_path / "nope.log"))
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: log file")
    assert "next: pass the path of a saved console log" in done.stderr


def _binary_log(path: Path) -> Path:
    """A real binary file (the Python interpreter's first bytes: an ELF) named like a log."""
    path.write_bytes(Path(sys.executable).resolve().read_bytes()[:4096])
    return path


def test_a_binary_file_is_not_a_text_log(tmp_path):
    done = invoke_parse(str(_binary_log(tmp_path / "firmware.log")))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert "firmware.log is not a text log (it holds NUL bytes)" in done.stderr
    assert "printed nothing" not in done.stderr + done.stdout


def test_non_text_bytes_without_nul_are_not_a_text_log(tmp_path):
    noise = tmp_path / "noise.log"
    noise.write_bytes(bytes(range(1, 32)) * 40 + bytes(range(0x80, 0x100)) * 10)
    done = invoke_parse(str(noise))
    assert done.returncode == 2 and "noise.log is not a text log (it is mostly non-text" \
        in done.stderr


def test_a_binary_file_among_logs_is_a_row_of_its_own(tmp_path):
    name = "et-docs-v0.3.0-1.log"
    (tmp_path / name).write_bytes((REPO / "tests/fixtures/transcripts" / name).read_bytes())
    _binary_log(tmp_path / "dump.log")
    done = invoke_parse(str(tmp_path))
    assert done.returncode == 1, done.stderr
    rows = {row[0]: row[1:] for row in map(str.split, done.stdout.splitlines()) if row}
    assert rows[name][:2] == ["pass", "success"]
    assert rows["dump.log"][:2] == ["not-text", "-"]
    assert "not a text log (it holds NUL bytes)" in " ".join(rows["dump.log"])
    assert done.stdout.splitlines()[-1] == "2 logs: 1 not-text, 1 pass"
    as_json = json.loads(invoke_parse(str(tmp_path), "--json").stdout)
    assert [entry.get("error", "") for entry in as_json][1].endswith(
        "dump.log is not a text log (it holds NUL bytes)")


def test_header_facts_reach_json_and_table():
    # Issue 25: `Output[0]: dtype=6, numel=1000, nbytes=4000` with no values.
    log = "tests/fixtures/transcripts/lp-imx93-executorch-2.log"
    done = invoke_parse(log, "--json")
    document = json.loads(done.stdout)
    validate(document)
    [output] = document["outputs"]
    assert (output["dtype"], output["numel"], output["nbytes"]) == ("float32", 1000, 4000)
    table = invoke_parse(log).stdout
    assert "#0 float32 [1,000 elements, 4,000 B], no values printed" in " ".join(table.split())


def test_launcher_line_before_a_fault_is_a_secondary_finding_in_json_and_table(tmp_path):
    # Issue 25's launcher line, then the real fault handler dump of mbed-os-pr-11332-1.
    fault = (REPO / "tests/fixtures/transcripts/mbed-os-pr-11332-1.log").read_text()
    log = tmp_path / "xterm-then-fault.log"
    log.write_text("sh: xterm: command not found\n" + fault)
    done = invoke_parse(str(log), "--json")
    document = json.loads(done.stdout)
    validate(document)
    assert document["classification"]["kind"] == "hard_fault"
    [secondary] = document["classification"]["details"]["secondary"]
    assert (secondary["kind"], secondary["line_number"]) == ("launch_failure", 1)
    table = " ".join(invoke_parse(str(log)).stdout.split())
    assert "also seen launch_failure at line 1 (sh: xterm: command not found)" in table
