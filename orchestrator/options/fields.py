"""How an option is defined: a dataclass field with help text, a parser and where it may be
given (an `invoke` flag, a regress matrix key). Option groups are frozen dataclasses of such
fields; the invoke task's parameters and help, the library's request object and the matrix
keys are all read off them, so adding an option is one field in one group."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import MISSING, Field, dataclass, field, fields
from pathlib import Path
from typing import Any, TypeVar

from orchestrator.foundation.errors import OrchestratorError

Parser = Callable[[Any, str], Any]
Group = TypeVar("Group")
META = "orchestrator.option"
GROUP = "orchestrator.option-group"


@dataclass(frozen=True)
class OptionInfo:
    """What the field metadata says about one option."""

    help: str
    parse: Parser | None = None
    flag: str | None = None
    cli: bool = True
    matrix: bool = True
    repeatable: bool = False
    bare: bool = False         # may be given without a value (--force = everything)
    off: tuple[str, str] | None = None   # a yes/no/unset switch: (off flag, its help)
    positional: bool = False   # may also be given without its flag (invoke parse LOG)


@dataclass(frozen=True)
class Spec:
    """One option of a group: its field name, CLI parameter name, default and info."""

    name: str
    info: OptionInfo
    default: Any
    required: bool

    @property
    def parameter(self) -> str:
        """The invoke task parameter (flag --a-b for parameter a_b)."""
        return self.info.flag or self.name

    @property
    def flag(self) -> str:
        """How the user types it: --idle-timeout."""
        return "--" + self.parameter.replace("_", "-")

    @property
    def is_bool(self) -> bool:
        """A switch: given or not (or a yes/no/unset switch with an off flag)."""
        return isinstance(self.default, bool) or self.info.off is not None


def option(default: Any = MISSING, help: str = "", *, parse: Parser | None = None,
           flag: str | None = None, cli: bool = True, matrix: bool = True,
           repeatable: bool = False, bare: bool = False, off: tuple[str, str] | None = None,
           positional: bool = False,
           default_factory: Callable[[], Any] | None = None) -> Any:
    """A dataclass field that is a user option (see OptionInfo for the switches)."""
    info = OptionInfo(help, parse, flag, cli, matrix, repeatable, bare, off, positional)
    if default_factory is not None:
        return field(default_factory=default_factory, metadata={META: info})
    return field(default=default, metadata={META: info})


def subgroup(group: type) -> Any:
    """A field holding a nested option group (its options are flags and keys of the outer)."""
    return field(default_factory=group, metadata={GROUP: group})


def specs(group: type) -> list[Spec]:
    """The options of a group and its nested groups, in field order."""
    found: list[Spec] = []
    for item in fields(group):
        if META in item.metadata:
            found.append(_spec(item))
        elif GROUP in item.metadata:
            found.extend(specs(item.metadata[GROUP]))
    return found


def own_specs(group: type) -> list[Spec]:
    """The options of the group itself (nested groups excluded)."""
    return [_spec(item) for item in fields(group) if META in item.metadata]


def _spec(item: Field[Any]) -> Spec:
    if item.default is not MISSING:
        default: Any = item.default
    elif item.default_factory is not MISSING:
        default = item.default_factory()
    else:
        default = None
    required = item.default is MISSING and item.default_factory is MISSING
    return Spec(item.name, item.metadata[META], default, required)


def cli_specs(*groups: type) -> list[Spec]:
    """The options that are invoke flags."""
    return [spec for group in groups for spec in specs(group) if spec.info.cli]


def matrix_keys(*groups: type) -> list[str]:
    """The option names a regress matrix option set may use (sorted, no repeats)."""
    return sorted({spec.name for group in groups for spec in specs(group) if spec.info.matrix})


def help_text(spec: Spec) -> str:
    """The flag's help with its default appended (switches and empty defaults say nothing)."""
    if spec.is_bool or spec.required or spec.default in (None, (), {}, ""):
        return spec.info.help
    return f"{spec.info.help} (default: {spec.default})"


def unknown_option_error(kind: str, unknown: Iterable[str], known: Iterable[str],
                         next_step: str) -> OrchestratorError:
    """One line naming the unknown option(s) and every known one."""
    names = ", ".join(sorted(unknown))
    return OrchestratorError(f"{kind} {names} is not an option (known: "
                             f"{', '.join(sorted(known))})", next_step)


def from_cli(group: type[Group], values: Mapping[str, Any], command: str = "") -> Group:
    """A group from invoke's keyword arguments (keyed by parameter; None = not given).
    `command` (e.g. "evaluate") names the task in the next step when a required option is
    missing."""
    given = {spec.name: _cli_value(spec, values) for spec in cli_specs(group)}
    usage = f"invoke {command} {cli_usage(group)}" if command else None
    return build(group, {name: value for name, value in given.items()
                         if value not in (None, [], ())}, lambda spec: spec.flag, usage=usage)


def cli_usage(group: type) -> str:
    """The required options as a user types them: `TARGET --model MODEL ...`."""
    required = [spec for spec in cli_specs(group) if spec.required]
    return " ".join(spec.name.upper() if spec.info.positional
                    else f"{spec.flag} {spec.name.upper()}" for spec in required)


def _cli_value(spec: Spec, values: Mapping[str, Any]) -> Any:
    """The flag's value; a yes/no/unset switch is True, False (its off flag) or None."""
    if spec.info.off is None:
        return values.get(spec.parameter)
    if values.get(spec.info.off[0]):
        return False
    return True if values.get(spec.parameter) else None


def from_matrix(group: type[Group], values: Mapping[str, Any], where: str,
                fixed: Mapping[str, Any] | None = None) -> Group:
    """A group from a matrix option set's keys that belong to it (others are left alone);
    `fixed` are the fields the matrix sets elsewhere (a cell's target, timeout, ...)."""
    given = {spec.name: values[spec.name] for spec in specs(group)
             if spec.info.matrix and spec.name in values}
    return build(group, given, lambda spec: f"{where} {spec.name}", fixed)


def build(group: type[Group], given: Mapping[str, Any], label: Callable[[Spec], str],
          fixed: Mapping[str, Any] | None = None, usage: str | None = None) -> Group:
    """Parse each given value with its option's parser; the rest keep their defaults.
    Nested groups are built from the same values; `fixed` values are taken as they are.
    A required option neither given nor fixed is a one-line error (next: `usage`)."""
    parsed: dict[str, Any] = {}
    for spec in own_specs(group):
        if spec.name in given:
            value = given[spec.name]
            parsed[spec.name] = spec.info.parse(value, label(spec)) if spec.info.parse else value
    for item in fields(group):  # type: ignore[arg-type]
        if GROUP in item.metadata:
            parsed[item.name] = build(item.metadata[GROUP], given, label, usage=usage)
    parsed.update(fixed or {})
    missing = [label(spec) for spec in own_specs(group)
               if spec.required and spec.name not in parsed]
    if missing:
        raise OrchestratorError(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} "
                                "required and not given",
                                usage or f"give {', '.join(missing)}")
    return group(**parsed)


def check_keys(keys: Iterable[str], known: Iterable[str], where: str, next_step: str) -> None:
    """Refuse keys that are not options, naming the known ones."""
    known_set = set(known)
    unknown = [key for key in keys if key not in known_set]
    if unknown:
        raise unknown_option_error(f"{where}:", unknown, known_set, next_step)


# -- value parsers: (value, label) -> typed value; a bad value is a one-line error ----------

def text(value: Any, label: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise OrchestratorError(f"{label} {value!r} is not a name", f"give {label} a text value")
    return value


def number(value: Any, label: str) -> float:
    """A float from a number or its text."""
    if isinstance(value, bool):
        raise OrchestratorError(f"{label} {value} is not a number", f"give {label} a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise OrchestratorError(f"{label} {value} is not a number",
                                f"give {label} a number, e.g. {label} 0.5") from None


def seconds(value: Any, label: str) -> float:
    """A positive number of seconds."""
    try:
        result = number(value, label)
    except OrchestratorError:
        raise OrchestratorError(f"{label} {value} is not a number of seconds",
                                f"e.g. {label} 60") from None
    if result <= 0:
        raise OrchestratorError(f"{label} must be positive seconds", f"e.g. {label} 60")
    return result


def seconds_or_off(value: Any, label: str) -> float:
    """Zero (off) or a positive number of seconds."""
    result = number(value, label)
    if result < 0:
        raise OrchestratorError(f"{label} must be 0 (off) or positive seconds",
                                f"e.g. {label} 60")
    return result


def switch(value: Any, label: str) -> bool:
    """true / false (a matrix must say a TOML boolean)."""
    if not isinstance(value, bool):
        raise OrchestratorError(f"{label} {value!r} is not true or false",
                                f"give {label} = true or false")
    return value


def count(value: Any, label: str) -> int:
    """A whole number, zero or more."""
    try:
        result = int(str(value), 10)
    except ValueError:
        raise OrchestratorError(f"{label} {value} is not a whole number",
                                f"e.g. {label} 20") from None
    if result < 0:
        raise OrchestratorError(f"{label} must be 0 or more", f"e.g. {label} 20")
    return result


def strings(value: Any, label: str) -> tuple[str, ...]:
    """A list of strings (one string is a list of one)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise OrchestratorError(f"{label} must be a list of strings",
                                f'give {label} = ["..."]')
    return tuple(items)


def names_or_all(value: Any, label: str) -> str | bool:
    """A flag given bare (True: everything) or with comma-separated names."""
    if isinstance(value, bool):
        return value
    return text(value, label)


def paths(value: Any, label: str) -> Mapping[str, Path]:
    """NAME -> directory."""
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise OrchestratorError(f"{label} must be a table of NAME = directory",
                                f'give {label} = {{ executorch = "/path" }}')
    return {name: Path(str(where)) for name, where in value.items()}


def size(value: Any, label: str) -> int | None:
    """'0x100000', '1048576', '512K', '16M', '2G' (or an int) -> bytes."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        number_ = value
        scale = 1
    else:
        text_ = str(value).strip().upper()
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text_[-1:], 1)
        digits = text_[:-1] if scale > 1 else text_
        try:
            number_ = int(digits, 0)
        except ValueError:
            raise OrchestratorError(f"{label} {value} is not a size",
                                    f"give bytes, e.g. {label} 0x200000 or {label} 2M") from None
    if number_ <= 0:
        raise OrchestratorError(f"{label} must be positive", f"e.g. {label} 2M")
    return number_ * scale
