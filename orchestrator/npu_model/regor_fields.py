"""What regor (the pinned Vela sdist) can write into each command of an NPU command stream.

Read from the sources, never typed: the interface header of an architecture names every command
(`cmd0_opcode`/`cmd1_opcode`), each command's fields (`struct npu_<command>_t`) and the enum
type of each enum field (the typed constructor); the register command stream generators of the
architecture (`*_register_cs_generator.cpp`) name the enum members they write
(`<enum type>::<MEMBER>`) and the commands they emit (`isa::npu_<command>_t`). An enum member
the generators compute from another (`int(activation_function::TABLE_0) + tableIndex`) stands
for its numbered siblings (TABLE_0..TABLE_7); a cast of a number to an enum type
(`kernel_dilation(kernel.Dilation().x - 1)`, `broadcast_mode(mode)`) for every member. Values
are attributed per enum type, so a member written for one field of a type counts for every
field of that type (an over-approximation: the table lists what regor may write, never less).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

# per family: the interface header and the generators that set the fields (below ethosu/regor)
FAMILIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "u55u65": ("architecture/ethosu65/ethos_u65_interface.hpp",
               ("architecture/ethosu55/ethos_u55_register_cs_generator.cpp",
                "architecture/ethosu65/ethos_u65_register_cs_generator.cpp")),
    "u85": ("architecture/ethosu85/ethos_u85_interface.hpp",
            ("architecture/ethosu85/ethos_u85_register_cs_generator.cpp",)),
}
REGOR = "ethosu/regor/"
_SKIPPED = ("opcode", "control")

_ENUM = re.compile(r"^enum class (\w+) : \w+\n\{\n(.*?)\n\};", re.S | re.M)
_MEMBER = re.compile(r"^\s*(\w+) = (\w+),?", re.M)
_STRUCT = re.compile(r"^struct npu_(\w+)_t\n\{\n(.*?)\n\};", re.S | re.M)
_STRUCT_OPCODE = re.compile(r"cmd[01]_opcode::(\w+)\)")
_BITFIELD = re.compile(r"^\s*uint32_t (\w+):(\d+);", re.M)
_TYPED_ARG = re.compile(r"NPU_NAMESPACE::(\w+) _(\w+)")
_NAMED = re.compile(r"\b(\w+)::(\w+)\b")
_COMPUTED = re.compile(r"int\((\w+)::(\w+)\)\s*\+")
_CAST = re.compile(r"(?<![\w:.])(\w+)\((?!\s*int\()(?!\s*\w+::)(?!\))")
_EMITTED = re.compile(r"isa::npu_(\w+)_t\b")


@dataclass(frozen=True)
class Field:
    """One field of one command: its width, its enum type (or '' for a number), the members the
    generators name (enum) and where."""

    name: str
    bits: int
    enum: str = ""
    defined: tuple[str, ...] = ()
    emitted: tuple[str, ...] = ()
    numbers: tuple[int, ...] = ()   # the value of each defined member
    offset: int = 0                 # first bit in the command (cmd1: its 64 bits)


@dataclass
class Command:
    name: str                      # NPU_SET_ACTIVATION
    kind: int                      # 0 or 1 (cmd0 / cmd1)
    emitted: bool
    fields: list[Field] = field(default_factory=list)


def enums(header: str) -> dict[str, dict[str, int]]:
    """Every `enum class` of an interface header: member -> value."""
    found: dict[str, dict[str, int]] = {}
    for name, body in _ENUM.findall(header):
        found[name] = {m: int(v, 0) for m, v in _MEMBER.findall(body)}
    return found


def named_members(sources: list[str], types: dict[str, dict[str, int]]) -> dict[str, set[str]]:
    """Enum members the generators name, per enum type (computed siblings included)."""
    named: dict[str, set[str]] = {}
    for text in sources:
        for type_name, member in _NAMED.findall(text):
            if member in types.get(type_name, {}):
                named.setdefault(type_name, set()).add(member)
        for type_name, member in _COMPUTED.findall(text):
            stem = member.rstrip("0123456789")
            siblings = {m for m in types.get(type_name, {}) if m.rstrip("0123456789") == stem
                        and m != stem}
            named.setdefault(type_name, set()).update(siblings)
        for type_name in _CAST.findall(text):
            if type_name in types:   # a member computed from a number: any of them
                named.setdefault(type_name, set()).update(types[type_name])
    return named


def _struct_fields(body: str) -> list[tuple[str, int, int]]:
    """(name, width, first bit) of each field but the opcode, control and reserved bits."""
    fields, offset = [], 0
    for name, bits in _BITFIELD.findall(body.split("public:")[0]):
        if name not in _SKIPPED and not name.startswith("reserved"):
            fields.append((name, int(bits), offset))
        offset += int(bits)
    return fields


def commands(header: str, sources: list[str]) -> list[Command]:
    """Every command the header defines, with its fields and the values regor names for them."""
    types = enums(header)
    named = named_members(sources, types)
    emitted_structs = {m for text in sources for m in _EMITTED.findall(text)}
    structs: dict[str, str] = {}
    emitted: set[str] = set()
    for struct, body in _STRUCT.findall(header):
        opcode = _STRUCT_OPCODE.search(body)
        if opcode:   # the struct of a command (not of a register)
            structs[opcode.group(1)] = body
            if struct in emitted_structs:
                emitted.add(opcode.group(1))
    found = []
    for kind, opcodes in ((0, "cmd0_opcode"), (1, "cmd1_opcode")):
        for name in sorted(types[opcodes], key=lambda n: types[opcodes][n]):
            body = structs.get(name, "")
            typed = dict((arg, t) for t, arg in _TYPED_ARG.findall(body) if t in types)
            command = Command(name, kind, name in emitted)
            for fname, bits, offset in _struct_fields(body):
                enum_type = typed.get(fname, "")
                members = types.get(enum_type, {})
                order = sorted(members, key=lambda m: members[m])
                command.fields.append(Field(
                    fname, bits, enum_type, tuple(order),
                    tuple(m for m in order if m in named.get(enum_type, set())),
                    tuple(members[m] for m in order), offset))
            found.append(command)
    return found


def family_commands(family: str, read: Callable[[str], str]) -> list[Command]:
    """The commands of one family, reading sources through `read(member below ethosu/regor)`."""
    header, generators = FAMILIES[family]
    return commands(read(REGOR + header), [read(REGOR + g) for g in generators])
