"""Output tensor dumps of every runner generation, with their dtype and honest elision notes.

Formats (all seen in tests/fixtures/transcripts):
  Output[0][1]: 0.169232            arm_executor_runner before typed prints: %f for floats,
  Output[0][1]: 2                   %d for ScalarType::Int (a value without '.' is an int32)
  Output[0][1]: (int) 2             typed prints: (int|char|bool|float)
  output[0]: tensor scalar_type=Float numel=5   then  [0] = 4.000000      Zephyr samples
      (`(Half tensor dump skipped)` for a dtype it does not print, `output[1]: non-tensor value`)
  Output[0]: dtype=6, numel=1000, nbytes=4000   then  [1]=1058744595 (float raw)   vendor port
      (`... (968 more elements)` after the first 32, `Output[1]: not a tensor`)

A header's facts (dtype, element count, byte size) are kept whether or not values follow, and
an output the runner announced (`2 outputs:`) but printed nothing of is still listed.
"""

from __future__ import annotations

import re
import struct

from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import PRINTED_FLOAT_PRECISION, OutputTensor

OUTPUT_VALUE = re.compile(
    r"^Output\[(?P<i>\d+)\]\[(?P<j>\d+)\]:\s*"
    r"(?:\((?P<type>int|float|char|bool)\)\s*)?(?P<value>\S+)"
)
NOT_TENSOR = re.compile(
    r"^\s*output\[(\d+)\]: (?:Not Tensor|not a tensor|non-tensor value)", re.IGNORECASE
)
INPUT_DUMP = re.compile(r"^Input\[\d+\](?:\[\d+\])?: ")
# `...`, `...(Skipped)`, `... (1000 total values)`, `... (968 more elements)` (both after a
# header that already gave numel) and the Zephyr sample's `(Half tensor dump skipped)`.
ELISION = re.compile(
    r"^\s*(?:\.\.\.\s*(?:\(Skipped\)|\(\d+ total values\)|\(\d+ more elements\))?"
    r"|\(\w+ tensor dump skipped\))\s*$"
)
TENSOR_HEADER = re.compile(
    r"^\s*output\[(?P<i>\d+)\]: (?:tensor scalar_type=(?P<name>\w+)|dtype=(?P<code>\d+),) "
    r"numel=(?P<numel>\d+)(?:,? nbytes=(?P<nbytes>\d+))?",
    re.IGNORECASE,
)
ELEMENT = re.compile(
    r"^\s*\[(?P<j>\d+)\]\s*=\s*(?P<value>[^\s(]+)(?P<raw> \(float raw\))?(?:\s.*)?$"
)
INTEGER = re.compile(r"^-?\d+$")

# Printed type -> (dtype, exact?, how the value was printed)
PRINTED_TYPES = {
    "int": ("int32", True, "printf %d: exact"),
    "char": ("int8", True, "printf %d: exact"),
    "bool": ("bool", True, "printf %s: exact"),
    "float": ("float32", False, PRINTED_FLOAT_PRECISION),
    None: (None, False, PRINTED_FLOAT_PRECISION),
}
RAW_FLOAT = ("float32", True, "float bits printed as an int32: exact")
# c10 ScalarType: the names Zephyr's dump prints and the numbers vendor ports print.
SCALAR_TYPES = {
    "Byte": "uint8", "Char": "int8", "Short": "int16", "Int": "int32", "Long": "int64",
    "Half": "float16", "Float": "float32", "Double": "float64", "Bool": "bool",
    "BFloat16": "bfloat16",
}
SCALAR_TYPE_CODES = {0: "Byte", 1: "Char", 2: "Short", 3: "Int", 4: "Long", 5: "Half",
                     6: "Float", 7: "Double", 11: "Bool", 15: "BFloat16"}
INTEGER_DTYPES = {"uint8", "int8", "int16", "int32", "int64"}


def printed_value(text: str, printed_type: str | None) -> int | float | bool | str:
    """Turn a printed value back into a number (or keep the text when it is not one)."""
    if printed_type == "bool":
        return text.lower() == "true"
    try:
        return int(text) if printed_type in ("int", "char") else float(text)
    except ValueError:
        return text


def untyped_kind(text: str) -> str | None:
    """The printed type of an untyped value: `%d` prints (no '.') come from int32 tensors."""
    return "int" if INTEGER.match(text) else None


def dump_value(text: str, dtype: str | None, raw: bool) -> int | float | bool | str:
    """One element of a tensor dump in its dtype (raw float bits decoded exactly)."""
    if raw and INTEGER.match(text):
        return float(struct.unpack("<f", struct.pack("<i", int(text)))[0])
    if dtype == "bool":
        return text.lower() in ("true", "1")
    if dtype in INTEGER_DTYPES and INTEGER.match(text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def dump_dtype(header: re.Match[str]) -> str | None:
    """The dtype a tensor dump header names (by ScalarType name or number)."""
    name = header["name"] or SCALAR_TYPE_CODES.get(int(header["code"]))
    return SCALAR_TYPES.get(name or "")


class OutputLines:
    """Collects output tensors value by value; notes gaps and elisions honestly."""

    def __init__(self) -> None:
        self._last_index: dict[int, int] = {}
        self._dump: OutputTensor | None = None

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Consume an output value, tensor dump, Not Tensor, elision or input dump line."""
        text = line.message
        match = OUTPUT_VALUE.match(text)
        if match:
            self._add_value(match, facts, line.number)
            return True
        if self._dump_line(text, facts, line.number):
            return True
        not_tensor = NOT_TENSOR.match(text)
        if not_tensor:
            tensor = self._tensor(facts, int(not_tensor[1]), PRINTED_TYPES[None])
            tensor.not_tensor = True
            return True
        if ELISION.match(text) and facts.outputs:
            facts.outputs[-1].elided = True
            return True
        return bool(INPUT_DUMP.match(text))

    def finish(self, facts: LogFacts) -> None:
        """A tensor that printed fewer elements than its header's numel is elided; one that
        printed none makes no claim about how values print; an announced output the log
        printed nothing of is listed without values."""
        for index in range(facts.expected_outputs or 0):
            if not any(tensor.index == index for tensor in facts.outputs):
                facts.outputs.append(OutputTensor(index=index, elided=True))
        facts.outputs.sort(key=lambda tensor: tensor.index)
        for tensor in facts.outputs:
            if len(tensor.values) < (tensor.numel or 0):
                tensor.elided = True
            if not tensor.values and tensor.shape is None:  # printed text, not a record
                tensor.exact, tensor.precision = False, None

    def _dump_line(self, text: str, facts: LogFacts, number: int) -> bool:
        """A tensor dump header, or one `[j] = value` element of the current dump."""
        header = TENSOR_HEADER.match(text)
        if header:
            index, dtype = int(header["i"]), dump_dtype(header)
            exact = dtype in INTEGER_DTYPES or dtype == "bool"
            precision = "printed as an integer: exact" if exact else PRINTED_FLOAT_PRECISION
            self._dump = self._tensor(facts, index, (dtype, exact, precision))
            self._dump.numel = int(header["numel"])
            self._dump.nbytes = int(header["nbytes"]) if header["nbytes"] else None
            facts.mark("outputs", number)
            return True
        element = ELEMENT.match(text) if self._dump is not None else None
        if element is None or self._dump is None:
            return False
        tensor = self._dump
        if element["raw"]:
            tensor.dtype, tensor.exact, tensor.precision = RAW_FLOAT
        self._append(tensor, int(element["j"]), dump_value(element["value"], tensor.dtype,
                                                           bool(element["raw"])))
        facts.mark("outputs", number)
        return True

    def _tensor(
        self, facts: LogFacts, index: int, kind: tuple[str | None, bool, str]
    ) -> OutputTensor:
        """The output tensor with this index, created when first seen."""
        for tensor in facts.outputs:
            if tensor.index == index:
                return tensor
        dtype, exact, precision = kind
        tensor = OutputTensor(index=index, dtype=dtype, exact=exact, precision=precision)
        facts.outputs.append(tensor)
        return tensor

    def _add_value(self, match: re.Match[str], facts: LogFacts, number: int) -> None:
        """One `Output[i][j]: v` element; an untyped integer print is an int32 element."""
        printed_type = match["type"] or untyped_kind(match["value"])
        tensor = self._tensor(facts, int(match["i"]), PRINTED_TYPES[printed_type])
        self._append(tensor, int(match["j"]), printed_value(match["value"], printed_type))
        facts.mark("outputs", number)

    def _append(self, tensor: OutputTensor, element: int, value: int | float | bool | str) -> None:
        """Append one element, switching to explicit indices once they stop being 0..n-1."""
        if tensor.indices is None and element != len(tensor.values):
            tensor.indices = list(range(len(tensor.values)))
        if tensor.indices is not None:
            if element > self._last_index.get(tensor.index, -1) + 1:
                tensor.elided = True
            tensor.indices.append(element)
        tensor.values.append(value)
        self._last_index[tensor.index] = element
