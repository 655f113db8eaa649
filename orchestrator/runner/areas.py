"""The files the simulator loads into the runner's model and input areas (layouts in
firmware/apps/runner/runner_areas.h; all little-endian)."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

MODEL_MAGIC = b"EORMODL1"
INPUT_MAGIC = b"EORINPT1"
MODEL_HEADER_SIZE = 64           # the .pte starts here (64-byte aligned)
MAX_DIMS = 8
_MODEL_HEADER = struct.Struct("<8sIII12x")
_INPUT_HEADER = struct.Struct("<8sIIIII4x")
NONCE_OFFSET = struct.calcsize("<8sII")   # the run nonce's place in the input-area header
_SAMPLES_HEADER = struct.Struct("<8sIIIIII")
SAMPLES_MAGIC = b"EORSMPL1"
SAMPLES_FILE = "eor_samples.bin"   # runner_samples.h RUNNER_SAMPLES_FILE
SAMPLES_HEADER_SIZE = 64
_INPUT_DESC = struct.Struct("<II8III")
DATA_ALIGN = 64

# ExecuTorch ScalarType codes by numpy dtype name, and the protocol's dtype names.
SCALAR_TYPE = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5,
               "float32": 6, "float64": 7, "bool": 11, "uint16": 27, "uint32": 28,
               "uint64": 29}


@dataclass(frozen=True)
class InputTensor:
    """One input: numpy dtype name, shape and raw little-endian bytes."""

    dtype: str
    shape: tuple[int, ...]
    data: bytes


def pack_model(pte: bytes) -> bytes:
    """The model-area file: header (magic, header size, size, CRC-32) then the .pte."""
    header = _MODEL_HEADER.pack(MODEL_MAGIC, MODEL_HEADER_SIZE, len(pte), zlib.crc32(pte))
    return header.ljust(MODEL_HEADER_SIZE, b"\0") + pte


def pack_inputs(inputs: Sequence[InputTensor], run_nonce: int, num_inferences: int = 1,
                samples: int = 0) -> bytes:
    """The input-area file: header, one descriptor per input, then the aligned tensor bytes.
    `samples` N > 0 makes it a sample session's area: the runner then reads N input sets
    from the samples file (pack_samples)."""
    header_size = _align(_INPUT_HEADER.size + _INPUT_DESC.size * len(inputs), DATA_ALIGN)
    descriptors, blobs, offset = [], [], header_size
    for tensor in inputs:
        descriptors.append(_descriptor(tensor, offset))
        padded = tensor.data.ljust(_align(len(tensor.data), DATA_ALIGN), b"\0")
        blobs.append(padded)
        offset += len(padded)
    head = _INPUT_HEADER.pack(INPUT_MAGIC, header_size, len(inputs), run_nonce & 0xFFFFFFFF,
                              num_inferences, samples)
    return (head + b"".join(descriptors)).ljust(header_size, b"\0") + b"".join(blobs)


def _descriptor(tensor: InputTensor, offset: int) -> bytes:
    if tensor.dtype not in SCALAR_TYPE:
        raise ValueError(f"input dtype {tensor.dtype} has no ExecuTorch scalar type")
    if len(tensor.shape) > MAX_DIMS:
        raise ValueError(f"input rank {len(tensor.shape)} exceeds {MAX_DIMS}")
    dims = list(tensor.shape) + [0] * (MAX_DIMS - len(tensor.shape))
    return _INPUT_DESC.pack(SCALAR_TYPE[tensor.dtype], len(tensor.shape), *dims, offset,
                            len(tensor.data))


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def unpack_inputs(blob: bytes) -> tuple[int, int, list[InputTensor]]:
    """(run_nonce, num_inferences, inputs) of an input-area file (the inverse of pack_inputs)."""
    magic, _, count, nonce, runs, _ = _INPUT_HEADER.unpack_from(blob)
    if magic != INPUT_MAGIC:
        raise ValueError("not an input-area file")
    names = {code: name for name, code in SCALAR_TYPE.items()}
    inputs = []
    for index in range(count):
        fields = _INPUT_DESC.unpack_from(blob, _INPUT_HEADER.size + index * _INPUT_DESC.size)
        dtype, ndim, dims, (offset, nbytes) = fields[0], fields[1], fields[2:10], fields[10:12]
        inputs.append(InputTensor(names[dtype], tuple(dims[:ndim]), blob[offset:offset + nbytes]))
    return nonce, runs, inputs


def pack_samples(input_sets: Sequence[Sequence[InputTensor]], run_nonce: int,
                 first: int = 0) -> tuple[bytes, bytes, int]:
    """(input area, samples file, record size) of a sample session over `input_sets` (record
    k is input set first+k of the data set; runner_samples.h has the layout)."""
    if not input_sets:
        raise ValueError("a sample session needs at least one input set")
    records = [pack_inputs(inputs, run_nonce) for inputs in input_sets]
    stride = _align(max(len(record) for record in records), DATA_ALIGN)
    head = _SAMPLES_HEADER.pack(SAMPLES_MAGIC, SAMPLES_HEADER_SIZE, len(records), stride, first,
                                run_nonce & 0xFFFFFFFF, 0).ljust(SAMPLES_HEADER_SIZE, b"\0")
    body = b"".join(record.ljust(stride, b"\0") for record in records)
    area = pack_inputs(input_sets[0], run_nonce, samples=len(records))
    return area, head + body, stride
