# ruff: noqa: E501  (console lines are kept whole so they read like the real log)
"""ETDump base64 blocks are decoded to files; chunked live streams parse like whole files."""

from __future__ import annotations

import base64
import os

import pytest

from orchestrator.parse.result import parse_log, result_from_facts
from orchestrator.parse.upstream import UpstreamLogParser, parse_file


def etdump_log(etdump: bytes, debug: bytes) -> str:
    """A run log with the ETDump block in the shape arm_executor_runner prints it."""
    return "\n".join(
        [
            "I [executorch:arm_executor_runner.cpp:1040 write_etdump()] [base64] buffer size: 2048",
            "#[RUN THIS]",
            "# Writing debug_buffer.bin [base64]",
            f'echo "{base64.b64encode(debug).decode()}" | base64 -d >debug_buffer.bin',
            "# Writing etdump.bin [base64]",
            f'echo "{base64.b64encode(etdump).decode()}" | base64 -d >etdump.bin',
            "# Generate cpu cycle table with:",
            "python3 -m devtools.inspector.inspector_cli --etdump_path etdump.bin "
            "--debug_buffer_path debug_buffer.bin --source_time_scale cycles --target_time_scale cycles",
            "#[END]",
            "I [executorch:arm_executor_runner.cpp:1379 main()] Program complete, exiting.",
        ]
    )


def test_etdump_blocks_are_decoded_to_files(tmp_path):
    etdump, debug = os.urandom(333), os.urandom(64)
    log = tmp_path / "run.log"
    log.write_text(etdump_log(etdump, debug))
    result = parse_log(log, tmp_path / "out")
    assert (tmp_path / "out" / "etdump.bin").read_bytes() == etdump
    assert (tmp_path / "out" / "debug_buffer.bin").read_bytes() == debug
    assert result.artifacts["etdump"] == str(tmp_path / "out" / "etdump.bin")
    assert result.artifacts["debug_buffer"] == str(tmp_path / "out" / "debug_buffer.bin")
    assert result.log.unknown_count == 0 and result.status.value == "pass"


def test_corrupt_etdump_payload_is_reported_not_raised(tmp_path):
    log = tmp_path / "run.log"
    log.write_text('#[RUN THIS]\necho "not base64!!" | base64 -d >etdump.bin\n#[END]\n')
    result = parse_log(log, tmp_path / "out")
    assert "not valid base64" in result.log.errors[0]
    assert not (tmp_path / "out").exists()


def test_etdump_target_paths_are_reduced_to_a_name_inside_the_dir(tmp_path):
    payload = base64.b64encode(b"abc").decode()
    log = tmp_path / "run.log"
    log.write_text(f'#[RUN THIS]\necho "{payload}" | base64 -d >../../evil\n#[END]\n')
    parse_log(log, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "run.log"]
    assert (tmp_path / "out" / "evil").read_bytes() == b"abc"


@pytest.mark.parametrize("chunk_size", [1, 7, 4096])
def test_live_stream_in_chunks_matches_whole_file(transcripts_dir, chunk_size):
    for path in sorted(transcripts_dir.glob("*.log")):
        data = path.read_bytes()
        parser = UpstreamLogParser()
        for start in range(0, len(data), chunk_size):
            parser.feed_chunk(data[start : start + chunk_size])
        streamed = result_from_facts(parser.finish(), run_id="x").to_dict()
        whole = result_from_facts(parse_file(path), run_id="x").to_dict()
        streamed.pop("created_at"), whole.pop("created_at")
        assert streamed == whole, path.name


def test_live_facts_show_progress_before_the_end():
    parser = UpstreamLogParser()
    parser.feed_chunk(
        b"I [executorch:arm_executor_runner.cpp:1 main()] Model executed successfully.\n"
    )
    assert "executed" in parser.facts.markers and "complete" not in parser.facts.markers
    parser.feed_chunk(b"I [executorch:arm_executor_runner.cpp:2 main()] Program compl")
    assert "complete" not in parser.facts.markers
    parser.feed_chunk(b"ete, exiting.\n")
    assert "complete" in parser.facts.markers


def test_utf8_split_across_chunks_is_decoded_whole():
    data = "I [executorch:a.cpp:1] Model in 0x70000000 °C\n".encode()
    cut = data.index("°".encode()) + 1
    parser = UpstreamLogParser()
    parser.feed_chunk(data[:cut])
    parser.feed_chunk(data[cut:])
    facts = parser.finish()
    assert facts.runner["model_address"] == "0x70000000"
    assert facts.log.lines == 1 and facts.log.unknown_count == 0


def test_kept_lines_are_bounded():
    parser = UpstreamLogParser()
    parser.feed_lines(["x" * 10_000] * 300)
    facts = parser.finish()
    assert facts.log.unknown_count == 300 and len(facts.log.unknown) == 200
    assert len(facts.log.unknown[0]) == 501
