"""The product's ETRecord: what ExecuTorch's devtools Inspector needs to name the operators of
an ETDump (the edge program, the emitted program and its debug-handle / delegate maps), saved
next to the .pte as upstream's aot_arm_compiler does (a copy of the edge program taken before
emitting, which rewrites it in place)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

ETRECORD = "etrecord.bin"


def edge_copy(edge: Any) -> Any:
    """The edge program manager as it is before `to_executorch` (the ETRecord needs it)."""
    return copy.deepcopy(edge)


def save_etrecord(path: Path, edge_before_emit: Any, program: Any) -> str | None:
    """Write the ETRecord; None when written, else why not (the product stays usable: a
    profile then names operators by debug handle only)."""
    from executorch.devtools import generate_etrecord

    try:
        generate_etrecord(str(path), edge_before_emit, program)
    except Exception as error:  # noqa: BLE001 - devtools failures must not fail a compile
        path.unlink(missing_ok=True)
        return f"no ETRecord: {type(error).__name__}: {str(error).splitlines()[0][:200]}"
    return None
