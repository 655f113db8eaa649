"""Dataclass <-> plain JSON values, driven by the type hints of the result dataclasses."""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from enum import Enum
from functools import cache
from typing import Any, Union

NON_FINITE = ("nan", "inf", "-inf")


def to_plain(value: Any) -> Any:
    """Dataclasses to dicts, enums to values, non-finite floats to strings JSON can hold."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, dict):
        return {str(key): to_plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


@cache
def _hints(cls: type) -> dict[str, Any]:
    """Resolved field types of a dataclass."""
    return typing.get_type_hints(cls)


def from_plain(hint: Any, value: Any) -> Any:
    """Rebuild a value of type `hint` from plain JSON values."""
    if value is None:
        return None
    if hint is Any and value in NON_FINITE:
        return float(value)
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        options = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return from_plain(options[0], value) if len(options) == 1 else value
    if origin is list:
        (item,) = typing.get_args(hint)
        return [from_plain(item, element) for element in value]
    if origin is dict:
        _, item = typing.get_args(hint)
        return {key: from_plain(item, element) for key, element in value.items()}
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _build(hint, value)
    if hint is float and isinstance(value, (int, str)):
        return float(value)
    return value


def _build(cls: type, document: dict[str, Any]) -> Any:
    """Construct dataclass `cls` from a dict, refusing keys it does not know."""
    hints = _hints(cls)
    unknown = set(document) - set(hints)
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown keys {sorted(unknown)}")
    return cls(**{key: from_plain(hints[key], item) for key, item in document.items()})
