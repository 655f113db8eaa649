"""The area files the host writes match the C structs the runner reads."""

from __future__ import annotations

import re
import struct
import zlib

import pytest

from orchestrator.foundation.paths import repo_root
from orchestrator.runner.areas import (
    INPUT_MAGIC,
    MODEL_HEADER_SIZE,
    MODEL_MAGIC,
    SCALAR_TYPE,
    InputTensor,
    pack_inputs,
    pack_model,
    unpack_inputs,
)

HEADER = repo_root() / "firmware" / "apps" / "runner" / "runner_areas.h"
FIELD = re.compile(r"^\s*(char|uint32_t)\s+(\w+)(?:\[(\w+)\])?;", re.MULTILINE)


def c_struct_size(name: str) -> int:
    """Size of a runner_areas.h struct from its field list (all fields 1- or 4-byte)."""
    text = HEADER.read_text()
    body = re.search(rf"struct {name} \{{(.*?)\}};", text, re.DOTALL).group(1)
    size = 0
    for kind, _, count in FIELD.findall(body):
        n = int(count) if count.isdigit() else int(re.search(
            rf"#define {count} (\d+)", text).group(1)) if count else 1
        size += (1 if kind == "char" else 4) * n
    return size


def test_struct_sizes_match_the_c_header():
    assert c_struct_size("runner_model_header") == 32
    assert c_struct_size("runner_input_header") == 32
    assert c_struct_size("runner_input_desc") == 48
    assert f'"{MODEL_MAGIC.decode()}"' in HEADER.read_text()
    assert f'"{INPUT_MAGIC.decode()}"' in HEADER.read_text()


def test_model_area_header_carries_size_and_crc():
    pte = bytes(range(256)) * 3
    blob = pack_model(pte)
    magic, header_size, size, crc = struct.unpack_from("<8sIII", blob)
    assert (magic, header_size, size) == (MODEL_MAGIC, MODEL_HEADER_SIZE, len(pte))
    assert crc == zlib.crc32(pte)
    assert blob[header_size:] == pte


def test_inputs_round_trip_with_alignment():
    inputs = [InputTensor("float32", (1, 3, 2, 2), bytes(range(48))),
              InputTensor("int8", (5,), b"\x01\x02\x03\x04\x05")]
    blob = pack_inputs(inputs, run_nonce=0x1234ABCD, num_inferences=3)
    nonce, runs, back = unpack_inputs(blob)
    assert (nonce, runs) == (0x1234ABCD, 3)
    assert back == inputs
    offsets = [struct.unpack_from("<I", blob, 32 + 48 * i + 40)[0] for i in range(2)]
    assert all(offset % 64 == 0 for offset in offsets)


def test_scalar_type_codes_follow_executorch():
    # runtime/core/portable_type/scalar_type.h: Byte=0 Char=1 Short=2 Int=3 Long=4 Half=5
    # Float=6 Double=7 Bool=11
    assert [SCALAR_TYPE[n] for n in ("uint8", "int8", "int16", "int32", "int64", "float16",
                                     "float32", "float64", "bool")] == [0, 1, 2, 3, 4, 5, 6, 7, 11]


def test_unsupported_inputs_are_refused():
    with pytest.raises(ValueError, match="complex64"):
        pack_inputs([InputTensor("complex64", (1,), b"\0" * 8)], 1)
    with pytest.raises(ValueError, match="rank 9"):
        pack_inputs([InputTensor("int8", (1,) * 9, b"\0")], 1)
