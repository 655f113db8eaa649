"""Frames and the stream parser: checksums, interleaving, chunking, garbage, tensors."""

from __future__ import annotations

import base64
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.protocol import MAGIC, StreamParser, decode_frame, encode_frame, parse_text
from orchestrator.protocol.frame import FrameError


def tensor_lines(index: int, dtype: str, shape: tuple[int, ...], data: bytes,
                 chunk: int = 120) -> list[str]:
    """The lines the firmware emits for one tensor (as firmware/protocol/protocol.c)."""
    chunks = [data[i:i + chunk] for i in range(0, len(data), chunk)]
    lines = [encode_frame("tensor", {"index": index, "dtype": dtype,
                                     "shape": ",".join(map(str, shape)), "nbytes": len(data),
                                     "chunks": len(chunks),
                                     "crc": f"0x{zlib.crc32(data):08x}"})]
    lines += [encode_frame("tdata", {"index": index, "seq": seq,
                                     "b64": base64.b64encode(part).decode()})
              for seq, part in enumerate(chunks)]
    return lines


def session(*middle: str, records: int | None = None) -> list[str]:
    """begin + middle + end with the right record count."""
    count = len(middle) if records is None else records
    return [encode_frame("begin", {"proto": 1, "app": "t", "platform": "p", "build": "ab12"}),
            *middle, encode_frame("end", {"status": "pass", "code": 0, "records": count})]


def test_frame_roundtrip_escapes_values():
    line = encode_frame("metric", {"name": "a b=c*d%", "value": 7, "unit": "bytes"})
    assert "name=a%20b%3dc%2ad%25 " in line.lower()
    frame = decode_frame(line)
    assert frame.type == "metric" and frame.fields["name"] == "a b=c*d%"


def test_checksum_mismatch_is_an_error_not_a_record():
    line = encode_frame("metric", {"name": "cycles", "value": 10, "unit": "cycles"})
    with pytest.raises(FrameError, match="checksum"):
        decode_frame(line.replace("value=10", "value=11"))
    assert decode_frame("ordinary log text") is None


def test_noise_before_and_after_a_frame_is_ignored():
    line = encode_frame("check", {"name": "x", "ok": 1, "got": 1, "expected": 1})
    frame = decode_frame(f"qemu: warning {MAGIC}garbage then {line}  trailing noise\r")
    assert frame is not None and frame.fields["name"] == "x"


def test_complete_session_with_interleaved_text():
    data = struct.pack("<4f", 1.0, -0.0, float("inf"), float("nan"))
    lines = session(
        encode_frame("metric", {"name": "total_cycles", "value": 42, "unit": "ticks",
                                "source": "systick"}),
        *tensor_lines(0, "float32", (2, 2), data))
    noisy = []
    for line in lines:
        noisy += ["I [executorch:x.cpp:1 f()] log line", "", line, "@@EOR0 old frame *00000000"]
    result = parse_text("\n".join(noisy))
    assert result.complete, result.problems
    assert result.tensors[0].data == data and result.tensors[0].shape == (2, 2)
    assert result.metric("total_cycles").source == "systick"


def test_corrupt_record_makes_the_stream_incomplete():
    lines = session(encode_frame("metric", {"name": "m", "value": 1, "unit": "u"}))
    lines[1] = lines[1].replace("value=1", "value=2")
    result = parse_text("\n".join(lines))
    assert result.corrupt == 1 and not result.complete
    assert result.end.records == 1 and result.frames == 0


def test_lost_tensor_chunk_is_reported():
    lines = tensor_lines(3, "int8", (300,), bytes(range(256)) + bytes(44))
    result = parse_text("\n".join(session(*[lines[0], lines[1], lines[3]], records=4)))
    assert 3 not in result.tensors
    assert any("tensor 3: 1 of 3 data chunks missing" in p for p in result.problems)


def test_tensor_size_must_match_dtype_and_shape():
    lines = tensor_lines(0, "int32", (3,), bytes(8))
    result = parse_text("\n".join(session(*lines)))
    assert 0 not in result.tensors and "int32[3] needs 12" in result.problems[0]


def test_restart_starts_a_new_session():
    first = session(encode_frame("metric", {"name": "m", "value": 1, "unit": "u"}))[:-1]
    result = parse_text("\n".join(first + session()))
    assert result.metrics == [] and result.complete is False
    assert "restarted" in result.problems[0]


def test_unknown_record_types_are_kept():
    result = parse_text("\n".join(session(encode_frame("npu_pmu", {"cycles": 5}))))
    assert result.complete and result.other[0].type == "npu_pmu"


@settings(max_examples=200, deadline=None)
@given(st.text(), st.integers(min_value=1, max_value=50))
def test_garbage_never_raises(text, step):
    parser = StreamParser()
    for start in range(0, len(text), step):
        parser.feed(text[start:start + step])
    result = parser.finish()
    assert result.begin is None and result.frames == 0


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=600), st.integers(min_value=1, max_value=97),
       st.sampled_from(["int8", "uint8", "bool"]))
def test_any_chunking_reassembles_exact_bytes(data, step, dtype):
    text = "\n".join(session(*tensor_lines(1, dtype, (len(data),), data))) + "\n"
    parser = StreamParser()
    for start in range(0, len(text), step):
        parser.feed(text[start:start + step])
    result = parser.finish()
    assert result.complete, result.problems
    assert result.tensors[1].data == data


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_characters="\n"), max_size=40),
                max_size=20))
def test_random_text_between_records_does_not_confuse(noise):
    lines = session(encode_frame("metric", {"name": "m", "value": 9, "unit": "u"}))
    mixed = []
    for index, line in enumerate(lines):
        mixed.append(noise[index] if index < len(noise) else "")
        mixed.append(line)
    result = parse_text("\n".join(mixed))
    assert result.complete and result.metric("m").value == 9
