"""An ExecuTorch program (.pte, flatbuffer identifier ET12) read without torch: methods with
their inputs, outputs, operators, delegates (with their data resolved from inline data or
segments) and planned memory. Field indices follow executorch 1.4.1's schema/program.fbs."""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from orchestrator.artifacts.flatbuf import FlatbufferError, FlatTable, file_identifier

PROGRAM_ID = b"ET12"
EXTENDED_MAGIC = b"eh00"
# ScalarType (schema/scalar_type.fbs) -> numpy dtype name (ExecuTorch's own for the rest).
SCALAR_TYPES = {0: "uint8", 1: "int8", 2: "int16", 3: "int32", 4: "int64", 5: "float16",
                6: "float32", 7: "float64", 11: "bool", 12: "qint8", 13: "quint8",
                14: "qint32", 15: "bfloat16", 16: "quint4x2", 17: "quint2x4", 22: "bits16",
                23: "float8_e5m2", 24: "float8_e4m3fn", 25: "float8_e5m2fnuz",
                26: "float8_e4m3fnuz", 27: "uint16", 28: "uint32", 29: "uint64"}
# KernelTypes union members (index 0 is NONE).
VALUE_KINDS = ("none", "null", "int", "bool", "double", "tensor", "string", "int_list",
               "double_list", "bool_list", "tensor_list", "optional_tensor_list")
TENSOR_KIND = 5
INT_KIND, DOUBLE_KIND = 2, 4
KERNEL_CALL, DELEGATE_CALL = 1, 2   # InstructionArguments: KernelCall, DelegateCall
SEGMENT = 1


class ProgramFormatError(ValueError):
    """The bytes are not a readable ExecuTorch program (one sentence why)."""


@dataclass(frozen=True)
class TensorSpec:
    """One input or output of a method; `kind` is 'tensor' or the value's kind (an int...)."""

    kind: str
    dtype: str = ""
    shape: tuple[int, ...] = ()
    dim_order: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, object]:
        if self.kind != "tensor":
            return {"kind": self.kind}
        return {"kind": "tensor", "dtype": self.dtype, "shape": list(self.shape),
                "dim_order": list(self.dim_order)}


@dataclass(frozen=True)
class Quantization:
    """The quantize (input) or dequantize (output) node at a method's edge: the real value
    of one quantized step and the zero point, and the integer dtype."""

    scale: float
    zero_point: int
    dtype: str

    def to_dict(self) -> dict[str, object]:
        return {"scale": self.scale, "zero_point": self.zero_point, "dtype": self.dtype}


@dataclass(frozen=True)
class QuantizeNode:
    """One quantize or dequantize kernel call: the value it reads, the value it writes, its
    parameters and clamp range (`op` names its kernel: portable quantized or cortex_m)."""

    op: str
    source: int
    result: int
    quantization: Quantization
    quant_min: int
    quant_max: int

    @property
    def dequantizes(self) -> bool:
        return "dequantize" in self.op


@dataclass(frozen=True)
class DelegateCall:
    """One delegate call of a method: the delegate's index and the values it reads, then the
    values it writes (in the delegate's input, then output, order)."""

    delegate: int
    args: tuple[int, ...]


@dataclass(frozen=True)
class Delegate:
    """One backend delegate of a method: its backend id, compile specs and processed data
    (b'' when it could not be resolved)."""

    backend: str
    method: str
    compile_specs: dict[str, bytes]
    data: bytes
    location: str


@dataclass(frozen=True)
class Method:
    """One execution plan."""

    name: str
    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    operators: tuple[str, ...]
    planned_buffers: tuple[int, ...]   # non_const_buffer_sizes without the reserved entry 0
    delegates: tuple[Delegate, ...] = ()
    input_quantization: tuple[Quantization | None, ...] = ()
    output_quantization: tuple[Quantization | None, ...] = ()
    input_values: tuple[int, ...] = ()      # the value index of each input and output
    output_values: tuple[int, ...] = ()
    quantize_nodes: tuple[QuantizeNode, ...] = ()
    delegate_calls: tuple[DelegateCall, ...] = ()

    @property
    def planned_bytes(self) -> int:
        return sum(self.planned_buffers)


@dataclass(frozen=True)
class Program:
    """A whole program file."""

    version: int
    size: int
    methods: tuple[Method, ...]
    named_data: tuple[str, ...] = ()
    segments: int = 0
    constant_bytes: int = field(default=0)

    @property
    def delegates(self) -> tuple[Delegate, ...]:
        return tuple(d for method in self.methods for d in method.delegates)

    @property
    def operators(self) -> tuple[str, ...]:
        """Every operator any method calls, sorted, without repeats."""
        return tuple(sorted({op for method in self.methods for op in method.operators}))


@dataclass(frozen=True)
class Header:
    """The extended header (after the root offset and identifier), if the file has one."""

    program_size: int
    segment_base_offset: int


def extended_header(data: bytes) -> Header | None:
    """The 'eh00' header of a .pte (None: a bare flatbuffer)."""
    if data[8:12] != EXTENDED_MAGIC or len(data) < 32:
        return None
    length, program_size, base = struct.unpack_from("<IQQ", data, 12)
    if length < 24:
        raise ProgramFormatError(f"its extended header is {length} bytes, fewer than 24")
    return Header(program_size, base)


def read_program(data: bytes) -> Program:
    """The program in `data` (a .pte's bytes); ProgramFormatError says why it is not one."""
    if file_identifier(data) != PROGRAM_ID:
        raise ProgramFormatError(f"its flatbuffer identifier is {file_identifier(data)!r}, "
                                 f"not {PROGRAM_ID.decode()}")
    header = extended_header(data)
    if header is not None and header.program_size > len(data):
        raise ProgramFormatError(f"it is truncated: its header says the program is "
                                 f"{header.program_size} bytes, the file has {len(data)}")
    try:
        return _program(FlatTable.root(data), data, header)
    except (FlatbufferError, struct.error, IndexError, UnicodeError) as error:
        raise ProgramFormatError(f"it is truncated or corrupt: a field points past its "
                                 f"{len(data)} bytes") from error


def _program(root: FlatTable, data: bytes, header: Header | None) -> Program:
    inline = [FlatTable.blob_span(t, 0) for t in root.tables(3)]
    segments = [(int(t.scalar(0, "Q")), int(t.scalar(1, "Q"))) for t in root.tables(4)]
    base = header.segment_base_offset if header else 0

    def delegate_data(location: int, index: int) -> tuple[bytes, str]:
        if location == SEGMENT:
            if index >= len(segments):
                raise ProgramFormatError(f"a delegate names segment {index} of "
                                         f"{len(segments)}")
            offset, size = segments[index]
            if base + offset + size > len(data):
                raise ProgramFormatError("it is truncated: a delegate's segment ends past "
                                         "the end of the file")
            return bytes(data[base + offset:base + offset + size]), "segment"
        if index >= len(inline):
            raise ProgramFormatError(f"a delegate names inline data {index} of {len(inline)}")
        start, size = inline[index]
        return bytes(data[start:start + size]), "inline"

    methods = []
    for plan in root.tables(1):
        name = plan.string(0)
        values = list(plan.tables(2))
        delegates = []
        for record in plan.tables(7):
            processed = record.table_at(1)
            location = int(processed.scalar(0, "b")) if processed else 0
            index = int(processed.scalar(1, "I")) if processed else 0
            blob, where = delegate_data(location, index)
            specs = {spec.string(0): spec.blob(1) for spec in record.tables(2)}
            delegates.append(Delegate(record.string(0), name, specs, blob, where))
        sizes = tuple(int(s) for s in plan.scalars(8, "q"))
        inputs = [int(i) for i in plan.scalars(3, "i")]
        outputs = [int(i) for i in plan.scalars(4, "i")]
        operators = tuple(_operator(op) for op in plan.tables(6))
        nodes = _quantize_nodes(plan, values, operators)
        edges = _edge_quantization(nodes)
        methods.append(Method(
            name=name,
            inputs=tuple(_value(values, i) for i in inputs),
            outputs=tuple(_value(values, i) for i in outputs),
            operators=operators, planned_buffers=sizes[1:], delegates=tuple(delegates),
            input_quantization=tuple(edges.get(("in", i)) for i in inputs),
            output_quantization=tuple(edges.get(("out", i)) for i in outputs),
            input_values=tuple(inputs), output_values=tuple(outputs), quantize_nodes=nodes,
            delegate_calls=_delegate_calls(plan)))
    constants = sum(t.blob_span(0)[1] for t in root.tables(2))
    return Program(version=int(root.scalar(0, "I")), size=len(data), methods=tuple(methods),
                   named_data=tuple(t.string(0) for t in root.tables(7)),
                   segments=len(segments), constant_bytes=constants)


def _operator(table: FlatTable) -> str:
    name, overload = table.string(0), table.string(1)
    return f"{name}.{overload}" if overload else name


def _value(values: list[FlatTable], index: int) -> TensorSpec:
    if not 0 <= index < len(values):
        raise ProgramFormatError(f"a method names value {index} of {len(values)}")
    value = values[index]
    kind = int(value.scalar(0, "B"))
    if kind != TENSOR_KIND:
        return TensorSpec(VALUE_KINDS[kind] if kind < len(VALUE_KINDS) else f"kind {kind}")
    tensor = value.table_at(1)
    if tensor is None:
        return TensorSpec("tensor")
    code = int(tensor.scalar(0, "b"))
    return TensorSpec("tensor", SCALAR_TYPES.get(code, f"scalar type {code}"),
                      tuple(int(s) for s in tensor.scalars(2, "i")),
                      tuple(int(d) for d in tensor.scalars(3, "B")))


def _instructions(plan: FlatTable, kind: int) -> list[tuple[int, tuple[int, ...]]]:
    """(operator or delegate index, argument value indices) of every instruction of `kind`
    (KERNEL_CALL or DELEGATE_CALL) of every chain."""
    calls = []
    for chain in plan.tables(5):
        for instruction in chain.tables(2):
            body = instruction.table_at(1)
            if int(instruction.scalar(0, "B")) == kind and body is not None:
                calls.append((int(body.scalar(0, "i")),
                              tuple(int(a) for a in body.scalars(1, "i"))))
    return calls


def _delegate_calls(plan: FlatTable) -> tuple[DelegateCall, ...]:
    return tuple(DelegateCall(index, args) for index, args in _instructions(plan, DELEGATE_CALL))


def _number(values: list[FlatTable], index: int) -> float | None:
    if not 0 <= index < len(values):
        return None
    value, kind = values[index], int(values[index].scalar(0, "B"))
    body = value.table_at(1)
    if body is None or kind not in (INT_KIND, DOUBLE_KIND):
        return None
    return float(body.scalar(0, "q" if kind == INT_KIND else "d"))


def _quantize_nodes(plan: FlatTable, values: list[FlatTable], operators: tuple[str, ...]
                    ) -> tuple[QuantizeNode, ...]:
    """Every quantize/dequantize_per_tensor.out call whose parameters are constants
    (arguments: input, scale, zero point, quant_min, quant_max, dtype, out)."""
    nodes = []
    for op_index, args in _instructions(plan, KERNEL_CALL):
        name = operators[op_index] if 0 <= op_index < len(operators) else ""
        if "quantize_per_tensor" not in name or len(args) < 7:
            continue
        scale, zero, low, high, dtype = (_number(values, args[i]) for i in (1, 2, 3, 4, 5))
        if scale is None or zero is None:
            continue
        quant = Quantization(scale, int(zero),
                             SCALAR_TYPES.get(int(dtype), "") if dtype is not None else "")
        nodes.append(QuantizeNode(name, args[0], args[-1], quant,
                                  int(low) if low is not None else -(1 << 31),
                                  int(high) if high is not None else (1 << 31) - 1))
    return tuple(nodes)


def _edge_quantization(nodes: tuple[QuantizeNode, ...]) -> dict[tuple[str, int], Quantization]:
    """The quantize nodes reading a method input ('in', value) and the dequantize nodes
    writing a method output ('out', value), with their scale, zero point and dtype."""
    return {("out", node.result) if node.dequantizes else ("in", node.source): node.quantization
            for node in nodes}
