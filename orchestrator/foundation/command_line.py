"""The commands a message tells the user to run next, written one way: `invoke TASK --flag
value ...` with each value quoted only where a shell needs it (placeholders like <ELF> stay
as they are, for the user to fill in)."""

from __future__ import annotations

import re
import shlex

PLACEHOLDER = re.compile(r"<[A-Z_]+>")


def invoke_line(task: str, **flags: object) -> str:
    """`invoke TASK --a-b VALUE ...` in the order given; None and False are left out, True
    is a bare switch."""
    parts = ["invoke", task]
    for name, value in flags.items():
        if value is None or value is False:
            continue
        parts.append("--" + name.replace("_", "-"))
        if value is not True:
            parts.append(_shown(str(value)))
    return " ".join(parts)


def _shown(value: str) -> str:
    return value if PLACEHOLDER.fullmatch(value) else shlex.quote(value)
