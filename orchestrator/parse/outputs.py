"""`Output[i][j]: (type) v` value dumps of every era, including doc elisions like `...(Skipped)`."""

from __future__ import annotations

import re

from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import PRINTED_FLOAT_PRECISION, OutputTensor

OUTPUT_VALUE = re.compile(
    r"^Output\[(?P<i>\d+)\]\[(?P<j>\d+)\]:\s*(?:\((?P<type>int|float|char|bool)\)\s*)?(?P<value>\S+)"
)
NOT_TENSOR = re.compile(r"^Output\[(\d+)\]: Not Tensor")
INPUT_DUMP = re.compile(r"^Input\[\d+\](?:\[\d+\])?: ")
ELISION = re.compile(r"^\s*\.\.\.\s*(?:\(Skipped\))?\s*$")

# Printed type -> (dtype, exact?, how the value was printed)
PRINTED_TYPES = {
    "int": ("int32", True, "printf %d: exact"),
    "char": ("int8", True, "printf %d: exact"),
    "bool": ("bool", True, "printf %s: exact"),
    "float": ("float32", False, PRINTED_FLOAT_PRECISION),
    None: (None, False, PRINTED_FLOAT_PRECISION),
}


def printed_value(text: str, printed_type: str | None) -> int | float | bool | str:
    """Turn a printed value back into a number (or keep the text when it is not one)."""
    if printed_type == "bool":
        return text.lower() == "true"
    try:
        return int(text) if printed_type in ("int", "char") else float(text)
    except ValueError:
        return text


class OutputLines:
    """Collects output tensors value by value; notes gaps and elisions honestly."""

    def __init__(self) -> None:
        self._last_index: dict[int, int] = {}

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Consume an output value, Not Tensor, elision or input dump line."""
        text = line.message
        match = OUTPUT_VALUE.match(text)
        if match:
            self._add_value(match, facts, line.number)
            return True
        not_tensor = NOT_TENSOR.match(text)
        if not_tensor:
            tensor = self._tensor(facts, int(not_tensor[1]), None)
            tensor.not_tensor = True
            return True
        if ELISION.match(text) and facts.outputs:
            facts.outputs[-1].elided = True
            return True
        return bool(INPUT_DUMP.match(text))

    def _tensor(self, facts: LogFacts, index: int, printed_type: str | None) -> OutputTensor:
        """The output tensor with this index, created when first seen."""
        for tensor in facts.outputs:
            if tensor.index == index:
                return tensor
        dtype, exact, precision = PRINTED_TYPES[printed_type]
        tensor = OutputTensor(index=index, dtype=dtype, exact=exact, precision=precision)
        facts.outputs.append(tensor)
        return tensor

    def _add_value(self, match: re.Match[str], facts: LogFacts, number: int) -> None:
        """Append one element, switching to explicit indices once they stop being 0..n-1."""
        index, element = int(match["i"]), int(match["j"])
        tensor = self._tensor(facts, index, match["type"])
        if tensor.indices is None and element != len(tensor.values):
            tensor.indices = list(range(len(tensor.values)))
        if tensor.indices is not None:
            if element > self._last_index.get(index, -1) + 1:
                tensor.elided = True
            tensor.indices.append(element)
        tensor.values.append(printed_value(match["value"], match["type"]))
        self._last_index[index] = element
        facts.mark("outputs", number)
