"""The delegate stream's block header in both layouts: executorch 1.4's (name, length, 12
zero bytes) and 1.5's (name, length, external flag, 11 reserved), with an external block
read from named data or refused in one line. Streams are written here from the documented
layout (executorch backends/arm/arm_vela.py of each release)."""

from __future__ import annotations

import hashlib
import struct

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import parse_blob

IO = struct.pack("<i", 1) + struct.pack("<9i", 1, 1, 1, 1, 2, 8, 1, 64, 1)


def _block(name: str, data: bytes, external: bool = False) -> bytes:
    header = struct.pack("<16sIB11s", name.encode(), len(data), int(external), b"\0" * 11)
    return header + data + b"\0" * (-len(data) % 16)


def _stream(commands: bytes, weights_external: bool) -> tuple[bytes, dict[str, bytes]]:
    weights = bytes(range(40))
    named: dict[str, bytes] = {}
    weight_block = weights
    if weights_external:
        key = hashlib.sha256(b"pte\0" + weights).hexdigest()
        named[key] = weights
        weight_block = key.encode("ascii")
    blob = b"".join([_block("vela_bin_stream", b""), _block("cmd_data", commands),
                     _block("weight_data", weight_block, weights_external),
                     _block("scratch_size", struct.pack("<I", 4096)),
                     _block("inputs", IO), _block("outputs", IO),
                     _block("vela_end_stream", b"")])
    return blob, named


def test_the_v1_4_and_v1_5_headers_read_the_same_program():
    commands = bytes(range(1, 25))
    inline, _ = _stream(commands, weights_external=False)
    external, named = _stream(commands, weights_external=True)
    first, second = parse_blob(inline), parse_blob(external, named)
    assert first == second
    assert (first.cmd_data, first.weight_data, first.scratch_size) == (
        commands, bytes(range(40)), 4096)
    assert first.inputs[0].shape == (1, 1, 1, 1, 2, 8) and first.inputs[0].offset == 64


def test_an_external_block_without_its_named_data_is_refused_in_one_line():
    external, _ = _stream(b"\1" * 8, weights_external=True)
    with pytest.raises(OrchestratorError) as caught:
        parse_blob(external)
    assert "weight_data block is kept outside the stream as named data" in caught.value.cause
    assert "\n" not in caught.value.message
