"""Bundled programs (.bpte, flatbuffer identifier BP08; executorch 1.4.1
devtools/bundled_program/schema/bundled_program_schema.fbs) read and written without torch:
the program plus, per method, test cases of inputs and expected outputs. Tensor bytes are the
tensor's storage, in its dim order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import flatbuffers

from orchestrator.artifacts.flatbuf import FlatbufferError, FlatTable, file_identifier
from orchestrator.artifacts.program import SCALAR_TYPES, ProgramFormatError

BUNDLE_ID = b"BP08"
BUNDLE_SCHEMA_VERSION = 2          # devtools/bundled_program/version.py
PROGRAM_ALIGNMENT = 32             # program: [ubyte] (force_align: 32)
TENSOR_ALIGNMENT = 16              # Tensor.data: [ubyte] (force_align: 16)
# ValueUnion members (index 0 is NONE).
TENSOR, INT, BOOL, DOUBLE = 1, 2, 3, 4
SCALAR_CODES = {name: code for code, name in SCALAR_TYPES.items()}


@dataclass(frozen=True)
class BundledValue:
    """One input or expected output: a tensor (dtype, shape, dim order, storage bytes) or a
    scalar (kind 'int', 'bool' or 'double' with `scalar`)."""

    kind: str
    dtype: str = ""
    shape: tuple[int, ...] = ()
    dim_order: tuple[int, ...] = ()
    data: bytes = b""
    scalar: int | float | bool | None = None


@dataclass(frozen=True)
class TestCase:
    """One test case of a method."""

    inputs: tuple[BundledValue, ...]
    expected_outputs: tuple[BundledValue, ...]


@dataclass(frozen=True)
class TestSuite:
    """The test cases of one method."""

    method: str
    cases: tuple[TestCase, ...]


@dataclass(frozen=True)
class Bundle:
    """A bundled program: its schema version, the test suites and the program's bytes."""

    version: int
    suites: tuple[TestSuite, ...]
    program: bytes


def is_bundle(data: bytes) -> bool:
    """Does `data` carry the bundled program identifier?"""
    return file_identifier(data) == BUNDLE_ID


def read_bundle(data: bytes) -> Bundle:
    """The bundled program in `data`; ProgramFormatError says why it is not one."""
    if not is_bundle(data):
        raise ProgramFormatError(f"its flatbuffer identifier is {file_identifier(data)!r}, "
                                 f"not {BUNDLE_ID.decode()}")
    try:
        root = FlatTable.root(data)
        suites = tuple(TestSuite(suite.string(0), tuple(
            TestCase(_values(case, 0), _values(case, 1)) for case in suite.tables(1)))
            for suite in root.tables(1))
        return Bundle(int(root.scalar(0, "I")), suites, root.blob(2))
    except (FlatbufferError, IndexError, UnicodeError) as error:
        raise ProgramFormatError(f"it is truncated or corrupt: a field points past its "
                                 f"{len(data)} bytes") from error


def _values(case: FlatTable, field: int) -> tuple[BundledValue, ...]:
    return tuple(_value(value) for value in case.tables(field))


def _value(value: FlatTable) -> BundledValue:
    kind = int(value.scalar(0, "B"))
    body = value.table_at(1)
    if body is None:
        return BundledValue("none")
    if kind == TENSOR:
        code = int(body.scalar(0, "b"))
        return BundledValue("tensor", SCALAR_TYPES.get(code, f"scalar type {code}"),
                            tuple(int(s) for s in body.scalars(1, "i")),
                            tuple(int(d) for d in body.scalars(3, "B")), body.blob(2))
    if kind == INT:
        return BundledValue("int", scalar=int(body.scalar(0, "q")))
    if kind == BOOL:
        return BundledValue("bool", scalar=bool(body.scalar(0, "?")))
    if kind == DOUBLE:
        return BundledValue("double", scalar=float(body.scalar(0, "d")))
    return BundledValue(f"kind {kind}")


def write_bundle(program: bytes, suites: Sequence[TestSuite]) -> bytes:
    """A BP08 file of `program` with `suites` (tensor values only), as upstream's
    serialize_from_bundled_program_to_flatbuffer lays it out."""
    builder = flatbuffers.Builder(len(program) + 4096)
    suite_offsets = [_suite(builder, suite) for suite in suites]
    builder.StartVector(1, len(program), PROGRAM_ALIGNMENT)
    builder.head = builder.head - len(program)
    builder.Bytes[builder.head:builder.head + len(program)] = program
    program_offset = builder.EndVector()
    suites_offset = _table_vector(builder, suite_offsets)
    builder.StartObject(3)
    builder.PrependUint32Slot(0, BUNDLE_SCHEMA_VERSION, 0)
    builder.PrependUOffsetTRelativeSlot(1, suites_offset, 0)
    builder.PrependUOffsetTRelativeSlot(2, program_offset, 0)
    builder.Finish(builder.EndObject(), file_identifier=BUNDLE_ID)
    return bytes(builder.Output())


def _table_vector(builder: flatbuffers.Builder, offsets: Sequence[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return int(builder.EndVector())


def _scalar_vector(builder: flatbuffers.Builder, values: Sequence[int], size: int,
                   prepend: str) -> int:
    builder.StartVector(size, len(values), size)
    for value in reversed(values):
        getattr(builder, prepend)(value)
    return int(builder.EndVector())


def _suite(builder: flatbuffers.Builder, suite: TestSuite) -> int:
    cases = [_case(builder, case) for case in suite.cases]
    name = builder.CreateString(suite.method)
    cases_offset = _table_vector(builder, cases)
    builder.StartObject(2)
    builder.PrependUOffsetTRelativeSlot(0, name, 0)
    builder.PrependUOffsetTRelativeSlot(1, cases_offset, 0)
    return int(builder.EndObject())


def _case(builder: flatbuffers.Builder, case: TestCase) -> int:
    inputs = _table_vector(builder, [_tensor_value(builder, v) for v in case.inputs])
    outputs = _table_vector(builder, [_tensor_value(builder, v) for v in case.expected_outputs])
    builder.StartObject(2)
    builder.PrependUOffsetTRelativeSlot(0, inputs, 0)
    builder.PrependUOffsetTRelativeSlot(1, outputs, 0)
    return int(builder.EndObject())


def _tensor_value(builder: flatbuffers.Builder, value: BundledValue) -> int:
    if value.kind != "tensor" or value.dtype not in SCALAR_CODES:
        raise ValueError(f"only tensors of ExecuTorch scalar types are bundled, "
                         f"not {value.kind} {value.dtype}")
    sizes = _scalar_vector(builder, list(value.shape), 4, "PrependInt32")
    builder.StartVector(1, len(value.data), TENSOR_ALIGNMENT)
    builder.head = builder.head - len(value.data)
    builder.Bytes[builder.head:builder.head + len(value.data)] = value.data
    data = builder.EndVector()
    order = _scalar_vector(builder, list(value.dim_order), 1, "PrependUint8")
    builder.StartObject(4)
    builder.PrependInt8Slot(0, SCALAR_CODES[value.dtype], 0)
    builder.PrependUOffsetTRelativeSlot(1, sizes, 0)
    builder.PrependUOffsetTRelativeSlot(2, data, 0)
    builder.PrependUOffsetTRelativeSlot(3, order, 0)
    tensor = builder.EndObject()
    builder.StartObject(2)
    builder.PrependUint8Slot(0, TENSOR, 0)
    builder.PrependUOffsetTRelativeSlot(1, tensor, 0)
    return int(builder.EndObject())
