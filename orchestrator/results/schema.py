"""The RunResult JSON Schema shipped in the package, and validation against it."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from orchestrator.foundation.tomlfile import DATA_DIR

SCHEMA_PATH = DATA_DIR / "runresult.schema.json"


@lru_cache(maxsize=1)
def load_schema() -> dict[str, Any]:
    """The parsed RunResult JSON Schema."""
    schema: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return schema


def validation_errors(document: dict[str, Any]) -> list[str]:
    """Every schema violation of `document`, as 'path: message' lines (empty when valid)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema())
    errors = sorted(validator.iter_errors(document), key=lambda error: list(error.path))
    return [f"{'/'.join(map(str, error.path)) or '<root>'}: {error.message}" for error in errors]


def validate(document: dict[str, Any]) -> None:
    """Raise ValueError naming the first violations when `document` is not a valid RunResult."""
    errors = validation_errors(document)
    if errors:
        raise ValueError("RunResult does not match its schema: " + "; ".join(errors[:5]))
