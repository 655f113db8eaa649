"""The register values a command stream writes, named as regor's interface header names them:
(command, field, member) for every enum field of every command, decoded from the model's own
listing of the stream (orchestrator/npu_model/listing.py) with the field layout read from the pinned
Vela sdist (orchestrator/npu_model/regor_fields.py). Tests use it to show a compiled graph reaches
the value they are about."""

from __future__ import annotations

from orchestrator.npu_model.listing import model_listing
from orchestrator.npu_model.regor_fields import Command

CMD0_PARAM_BIT = 16   # a cmd0's param (and a cmd1's first word's) starts at bit 16
WORD_BITS = 32

Value = tuple[str, str, str]


def stream_values(cmd_data: bytes, commands: list[Command]) -> set[Value]:
    """Every (command, enum field, member name) the COP1 payload's commands write."""
    layout = {command.name: command for command in commands}
    seen: set[Value] = set()
    for _offset, name, param, payload in model_listing(cmd_data):
        command = layout.get(name)
        if command is None:
            continue
        word = (param << CMD0_PARAM_BIT) | ((payload or 0) << WORD_BITS)
        for field in command.fields:
            if not field.enum:
                continue
            number = (word >> field.offset) & ((1 << field.bits) - 1)
            named = dict(zip(field.numbers, field.defined, strict=True))
            seen.add((name, field.name, named.get(number, str(number))))
    return seen
