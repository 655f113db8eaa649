"""An ExecuTorch program (.pte) read and written without executorch or torch.

A configuration's .pte differs from its lowering's template only in the Ethos-U delegates'
blobs and two compile-spec entries. ExecuTorch v1.4.1 writes a program with the `flatbuffers`
package's Builder, each table packed as flatc's generated object API packs it
(exir/_serialize/_flatbuffer_program.py and generated/executorch_flatbuffer/*.py: children
in field order, then the table's fields in field order; delegate and constant byte vectors
with their schema force_align), then inserts the 32-byte extended header ('eh00') after the
file identifier and appends the segments at a 128-byte aligned base (_program.py
serialize_pte_binary). Here the template is read field by field (SCHEMA mirrors
exir/_serialize/program.fbs of v1.4.1, ScalarType a byte) and packed again the same way, so
the bytes are the ones executorch's deserialize_pte_binary + serialize_pte_binary give;
`rebuilds_itself` checks that on the template before a configuration relies on it.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import flatbuffers

FILE_IDENTIFIER = b"ET12"
HEADER_MAGIC = b"eh00"
HEADER_LENGTH = 32          # magic, length, program size, segment base, segment data size
SEGMENT_ALIGNMENT = 128     # serialize_pte_binary's default segment_alignment
DELEGATE_ALIGNMENT = 16     # program.fbs: BackendDelegateInlineData.data force_align
TENSOR_ALIGNMENT = 16       # program.fbs: Buffer.storage force_align (exir.tensor.ALIGNMENT)

# A field: (name, kind). Kinds: a struct scalar code ('B' ubyte, 'b' byte, '?' bool,
# 'I' uint, 'i' int, 'Q' uint64, 'q' int64, 'd' double), 'str', 'bytes<align>' (a [ubyte]),
# '[<code>]' (a scalar vector), 'T:<table>', '[T:<table>]', 'U:<union>' (two slots).
SCHEMA: dict[str, tuple[tuple[str, str], ...]] = {
    "ContainerMetadata": (("encoded_inp_str", "str"), ("encoded_out_str", "str")),
    "Null": (),
    "AllocationDetails": (("memory_id", "I"), ("memory_offset_low", "I"),
                          ("memory_offset_high", "I")),
    "ExtraTensorInfo": (("mutable_data_segments_idx", "Q"), ("fully_qualified_name", "str"),
                        ("location", "b"), ("device_type", "b"), ("device_index", "b")),
    "Tensor": (("scalar_type", "b"), ("storage_offset", "i"), ("sizes", "[i]"),
               ("dim_order", "bytes1"), ("requires_grad", "?"), ("data_buffer_idx", "I"),
               ("allocation_info", "T:AllocationDetails"), ("layout", "b"),
               ("shape_dynamism", "b"), ("extra_tensor_info", "T:ExtraTensorInfo")),
    "Int": (("int_val", "q"),),
    "Bool": (("bool_val", "?"),),
    "Double": (("double_val", "d"),),
    "String": (("string_val", "str"),),
    "IntList": (("items", "[q]"),),
    "DoubleList": (("items", "[d]"),),
    "BoolList": (("items", "[?]"),),
    "TensorList": (("items", "[i]"),),
    "OptionalTensorList": (("items", "[i]"),),
    "EValue": (("val", "U:KernelTypes"),),
    "Operator": (("name", "str"), ("overload", "str")),
    "KernelCall": (("op_index", "i"), ("args", "[i]")),
    "DelegateCall": (("delegate_index", "i"), ("args", "[i]")),
    "MoveCall": (("move_from", "i"), ("move_to", "i")),
    "JumpFalseCall": (("cond_value_index", "i"), ("destination_instruction", "i")),
    "FreeCall": (("value_index", "i"),),
    "Instruction": (("instr_args", "U:InstructionArguments"),),
    "Frame": (("filename", "str"), ("lineno", "i"), ("name", "str"), ("context", "str")),
    "FrameList": (("items", "[T:Frame]"),),
    "BackendDelegateDataReference": (("location", "b"), ("index", "I")),
    "CompileSpec": (("key", "str"), ("value", "bytes1")),
    "BackendDelegate": (("id", "str"), ("processed", "T:BackendDelegateDataReference"),
                        ("compile_specs", "[T:CompileSpec]")),
    "Chain": (("inputs", "[i]"), ("outputs", "[i]"), ("instructions", "[T:Instruction]"),
              ("stacktrace", "[T:FrameList]")),
    "ExecutionPlan": (("name", "str"), ("container_meta_type", "T:ContainerMetadata"),
                      ("values", "[T:EValue]"), ("inputs", "[i]"), ("outputs", "[i]"),
                      ("chains", "[T:Chain]"), ("operators", "[T:Operator]"),
                      ("delegates", "[T:BackendDelegate]"),
                      ("non_const_buffer_sizes", "[q]"),
                      ("non_const_buffer_device", "[T:NonConstBufferDevice]")),
    "NonConstBufferDevice": (("buffer_idx", "i"), ("device_type", "b"),
                             ("device_index", "b")),
    "Buffer": (("storage", f"bytes{TENSOR_ALIGNMENT}"),),
    "BackendDelegateInlineData": (("data", f"bytes{DELEGATE_ALIGNMENT}"),),
    "DataSegment": (("offset", "Q"), ("size", "Q")),
    "SubsegmentOffsets": (("segment_index", "I"), ("offsets", "[Q]")),
    "NamedData": (("key", "str"), ("segment_index", "I")),
    "Program": (("version", "I"), ("execution_plan", "[T:ExecutionPlan]"),
                ("constant_buffer", "[T:Buffer]"),
                ("backend_delegate_data", "[T:BackendDelegateInlineData]"),
                ("segments", "[T:DataSegment]"), ("constant_segment", "T:SubsegmentOffsets"),
                ("mutable_data_segments", "[T:SubsegmentOffsets]"),
                ("named_data", "[T:NamedData]")),
}
UNIONS: dict[str, tuple[str, ...]] = {   # member i + 1 is type code i + 1 (0: NONE)
    "KernelTypes": ("Null", "Int", "Bool", "Double", "Tensor", "String", "IntList",
                    "DoubleList", "BoolList", "TensorList", "OptionalTensorList"),
    "InstructionArguments": ("KernelCall", "DelegateCall", "MoveCall", "JumpFalseCall",
                             "FreeCall"),
}
PREPEND = {"B": "Uint8", "b": "Int8", "?": "Bool", "I": "Uint32", "i": "Int32",
           "Q": "Uint64", "q": "Int64", "d": "Float64"}

Table = dict[str, Any]


class PteFormatError(ValueError):
    """The .pte is not one this module reads (no identifier, another layout)."""


# ---------------------------------------------------------------- reading

def _u32(data: bytes, at: int) -> int:
    return int(struct.unpack_from("<I", data, at)[0])


def _slots(fields: tuple[tuple[str, str], ...]) -> list[tuple[str, str, int]]:
    """(name, kind, vtable slot) of each field; a union takes two slots (type, value)."""
    slots, slot = [], 0
    for name, kind in fields:
        if kind.startswith("U:"):
            slot += 1
        slots.append((name, kind, slot))
        slot += 1
    return slots


def _field_at(data: bytes, table: int, slot: int) -> int | None:
    vtable = table - int(struct.unpack_from("<i", data, table)[0])
    vtable_size = struct.unpack_from("<H", data, vtable)[0]
    entry = 4 + 2 * slot
    if entry >= vtable_size:
        return None
    offset = struct.unpack_from("<H", data, vtable + entry)[0]
    return table + offset if offset else None


def _vector(data: bytes, at: int) -> tuple[int, int]:
    start = at + _u32(data, at)
    return start + 4, _u32(data, start)


def _read_value(data: bytes, at: int, kind: str) -> Any:
    if kind == "str" or kind.startswith("bytes"):
        start, length = _vector(data, at)
        return bytes(data[start:start + length])
    if kind.startswith("[T:"):
        start, length = _vector(data, at)
        return [read_table(data, start + 4 * i + _u32(data, start + 4 * i), kind[3:-1])
                for i in range(length)]
    if kind.startswith("["):
        code = kind[1:-1]
        start, length = _vector(data, at)
        return list(struct.unpack_from(f"<{length}{code}", data, start))
    if kind.startswith("T:"):
        return read_table(data, at + _u32(data, at), kind[2:])
    return struct.unpack_from(f"<{kind}", data, at)[0]


def read_table(data: bytes, table: int, name: str) -> Table:
    """The fields of table `name` at `table` (absent offsets None, absent scalars 0)."""
    record: Table = {}
    for field, kind, slot in _slots(SCHEMA[name]):
        if kind.startswith("U:"):
            type_at = _field_at(data, table, slot - 1)
            code = data[type_at] if type_at is not None else 0
            value_at = _field_at(data, table, slot)
            member = UNIONS[kind[2:]][code - 1] if code else None
            record[field] = (code, read_table(data, value_at + _u32(data, value_at), member)
                             if member is not None and value_at is not None else None)
            continue
        at = _field_at(data, table, slot)
        if at is None:
            record[field] = 0 if kind in PREPEND else None   # a scalar's default is 0
            continue
        record[field] = _read_value(data, at, kind)
    return record


# ---------------------------------------------------------------- writing

def _byte_vector(builder: flatbuffers.Builder, data: bytes, alignment: int) -> int:
    """As executorch's _create_aligned_byte_vector (and, at alignment 1, the generated
    PrependUint8 loop) lay a [ubyte] out."""
    builder.StartVector(1, len(data), alignment)
    builder.head = builder.Head() - len(data)
    builder.Bytes[builder.Head():builder.Head() + len(data)] = data
    end: int = builder.EndVector()
    return end


def _offset_vector(builder: flatbuffers.Builder, offsets: list[int]) -> int:
    builder.StartVector(4, len(offsets), 4)
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    end: int = builder.EndVector()
    return end


def _child(builder: flatbuffers.Builder, value: Any, kind: str) -> int | None:
    """Pack a non-scalar field's value (None when absent)."""
    if value is None:
        return None
    if kind == "str":
        made: int = builder.CreateString(bytes(value))
        return made
    if kind.startswith("bytes"):
        return _byte_vector(builder, bytes(value), int(kind[5:]))
    if kind.startswith("[T:"):
        return _offset_vector(builder, [pack_table(builder, item, kind[3:-1])
                                        for item in value])
    if kind.startswith("["):
        size = struct.calcsize(kind[1:-1])
        builder.StartVector(size, len(value), size)
        prepend: Callable[[Any], None] = getattr(builder, f"Prepend{PREPEND[kind[1:-1]]}")
        for item in reversed(value):
            prepend(item)
        end: int = builder.EndVector()
        return end
    if kind.startswith("T:"):
        return pack_table(builder, value, kind[2:])
    code, member = value        # a union: its table
    return pack_table(builder, member, UNIONS[kind[2:]][code - 1]) if member is not None \
        else None


def pack_table(builder: flatbuffers.Builder, record: Table, name: str) -> int:
    """Pack `record` as the generated object API's Pack does."""
    slots = _slots(SCHEMA[name])
    children = {field: _child(builder, record[field], kind)
                for field, kind, _slot in slots if kind not in PREPEND}
    builder.StartObject(slots[-1][2] + 1 if slots else 0)
    for field, kind, slot in slots:
        if kind in PREPEND:
            getattr(builder, f"Prepend{PREPEND[kind]}Slot")(slot, record[field], 0)
            continue
        if kind.startswith("U:"):
            builder.PrependUint8Slot(slot - 1, record[field][0], 0)
        if children[field] is not None:
            builder.PrependUOffsetTRelativeSlot(slot, children[field], 0)
    end: int = builder.EndObject()
    return end


# ---------------------------------------------------------------- the file

@dataclass
class PteFile:
    """A .pte: its program's fields, its extended header and its segment data."""

    program: Table
    header: bytes          # the extended header as found (empty: none)
    segments: bytes        # everything from the segment base on


def read_pte(data: bytes) -> PteFile:
    if data[4:8] != FILE_IDENTIFIER:
        raise PteFormatError(f"not an ExecuTorch {FILE_IDENTIFIER.decode()} program")
    program = read_table(data, _u32(data, 0), "Program")
    if data[8:12] != HEADER_MAGIC:
        return PteFile(program, b"", b"")
    header = bytes(data[8:8 + HEADER_LENGTH])
    base = int(struct.unpack_from("<Q", header, 16)[0])
    return PteFile(program, header, bytes(data[base:]))


def _aligned(size: int, alignment: int) -> int:
    return (size + alignment - 1) // alignment * alignment


def write_pte(pte: PteFile) -> bytes:
    builder = flatbuffers.Builder(0)
    builder.Finish(pack_table(builder, pte.program, "Program"), file_identifier=FILE_IDENTIFIER)
    flat = bytes(builder.Output())
    if not pte.header:
        return flat
    program_size = len(flat) + HEADER_LENGTH
    base = _aligned(program_size, SEGMENT_ALIGNMENT)
    header = (pte.header[:8] + struct.pack("<QQ", program_size, base)
              + pte.header[24:HEADER_LENGTH])
    program = struct.pack("<I", _u32(flat, 0) + HEADER_LENGTH) + flat[4:8] + header + flat[8:]
    return program + b"\0" * (base - program_size) + pte.segments


# ---------------------------------------------------------------- a configuration

def delegate_blob(program: Table, delegate: Table) -> bytes:
    blob: bytes = program["backend_delegate_data"][delegate["processed"]["index"]]["data"]
    return blob


def configure_pte(pte: PteFile, placement: list[tuple[int, int, int]], binaries: list[bytes],
                  configuration: dict[str, bytes]) -> None:
    """Partition i's delegates carry `binaries[i]` and the configuration compile specs
    (in place); delegate data laid out as the emitter does: in delegate order, one entry
    per distinct blob (orchestrator.aot.assembly.assemble does the same with executorch)."""
    program = pte.program
    blob_of = {(plan, delegate): binaries[partition] for plan, delegate, partition in placement}
    data: list[Table] = []
    index_of: dict[str, int] = {}
    for plan_index, plan in enumerate(program["execution_plan"]):
        for index, delegate in enumerate(plan["delegates"] or []):
            blob = blob_of.get((plan_index, index))
            if blob is None:
                blob = delegate_blob(program, delegate)
            else:
                for spec in delegate["compile_specs"] or []:
                    key = spec["key"].decode()
                    if key in configuration:
                        spec["value"] = configuration[key]
            digest = hashlib.sha256(blob).hexdigest()
            if digest not in index_of:
                index_of[digest] = len(data)
                data.append({"data": blob})
            delegate["processed"]["index"] = index_of[digest]
    program["backend_delegate_data"] = data


def compile_specs(pte: PteFile, plan: int, delegate: int) -> dict[str, bytes]:
    """A delegate's compile specs by key."""
    found = pte.program["execution_plan"][plan]["delegates"][delegate]["compile_specs"] or []
    return {spec["key"].decode(): bytes(spec["value"]) for spec in found}


def delegate_records(pte: PteFile) -> list[tuple[str, str, bytes | None]]:
    """(backend id, method, inline blob or None) of every delegate, in program order."""
    records = []
    for plan in pte.program["execution_plan"]:
        for delegate in plan["delegates"] or []:
            inline = delegate["processed"]["location"] == 0
            records.append((delegate["id"].decode(), plan["name"].decode(),
                            delegate_blob(pte.program, delegate) if inline else None))
    return records
