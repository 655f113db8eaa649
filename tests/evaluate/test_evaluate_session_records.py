"""A sample session's bytes and records: the samples file the runner reads through
semihosting (runner_samples.h) and the `sample` records that close each input set."""

from __future__ import annotations

import struct
import zlib

import numpy as np

from orchestrator.evaluate.scoring import per_class, score_sample, summarize
from orchestrator.protocol import StreamParser, encode_frame
from orchestrator.runner.areas import (
    SAMPLES_HEADER_SIZE,
    SAMPLES_MAGIC,
    InputTensor,
    pack_samples,
    unpack_inputs,
)


def input_set(value: int) -> list[InputTensor]:
    return [InputTensor("int8", (1, 3), bytes([value, value + 1, value + 2]))]


def test_samples_file_holds_every_input_set_at_its_stride():
    sets = [input_set(v) for v in (1, 10, 20)]
    area, blob, stride = pack_samples(sets, run_nonce=0xABCD, first=5)
    magic, header_size, count, file_stride, first, nonce, _ = struct.unpack_from("<8sIIIIII",
                                                                                 blob)
    assert (magic, header_size, count, file_stride, first, nonce) == (
        SAMPLES_MAGIC, SAMPLES_HEADER_SIZE, 3, stride, 5, 0xABCD)
    assert len(blob) == SAMPLES_HEADER_SIZE + 3 * stride and stride % 64 == 0
    for k, expected in enumerate(sets):
        record = blob[SAMPLES_HEADER_SIZE + k * stride:SAMPLES_HEADER_SIZE + (k + 1) * stride]
        assert unpack_inputs(record) == (0xABCD, 1, expected)
    # the area the simulator loads asks for the session (header field `samples`)
    assert struct.unpack_from("<I", area, 24)[0] == 3


def frames(*records: tuple[str, dict[str, object]]) -> str:
    return "".join(encode_frame(kind, fields) + "\n" for kind, fields in records)


def tensor(index: int, data: bytes) -> list[tuple[str, dict[str, object]]]:
    import base64

    return [("tensor", {"index": index, "dtype": "int8", "shape": f"1,{len(data)}",
                        "nbytes": len(data), "chunks": 1, "crc": f"0x{zlib.crc32(data):08x}"}),
            ("tdata", {"index": index, "seq": 0, "b64": base64.b64encode(data).decode()})]


def test_sample_records_close_each_input_sets_outputs():
    parser = StreamParser()
    parser.feed(frames(("begin", {"proto": 1, "app": "runner", "platform": "p", "build": "0"}),
                       *tensor(0, b"\x01\x02"),
                       ("sample", {"seq": 0, "index": 7, "value": 120, "unit": "ticks",
                                   "source": "systick"}),
                       *tensor(0, b"\x03\x04"),
                       ("sample", {"seq": 1, "index": 8, "value": 130, "unit": "ticks",
                                   "source": "systick"}),
                       *tensor(0, b"\x05\x06")))        # the session died during sample 2
    stream = parser.finish()
    assert [(s.seq, s.index, s.cycles) for s in stream.samples] == [(0, 7, 120), (1, 8, 130)]
    assert [s.tensors[0].data for s in stream.samples] == [b"\x01\x02", b"\x03\x04"]
    assert stream.end is None and stream.tensors[0].data == b"\x05\x06"


def test_scores_and_summary_side_by_side():
    floating = [np.array([[0.1, 0.9, 0.0]], dtype=np.float32)]
    exact = [np.array([[0.0, 1.0, 0.0]], dtype=np.float32)]
    same = score_sample(0, "a.npy", 1, 100, exact, exact, floating, 0.5)
    other = score_sample(1, "b.npy", 2, 110, [np.array([[1.0, 0.0, 0.0]], dtype=np.float32)],
                         exact, floating, 0.5)
    assert same.exact and same.top1 and same.device_class == same.host_class == 1
    assert other.exact is False and "differ from the exact reference" in other.mismatch
    summary = summarize([same, other], requested=3)
    assert summary["completed"] == 2 and summary["exact"] == 1 and summary["not_exact"] == [1]
    assert summary["accuracy"] == {"float": 0.5, "host_integer": 0.5, "device": 0.5}
    assert summary["top1_agreement"] == 0.5
    assert per_class([same, other]) == {1: {"float": 1.0, "host_integer": 1.0, "device": 1.0},
                                        2: {"float": 0.0, "host_integer": 0.0, "device": 0.0}}
