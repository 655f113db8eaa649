"""The options of `invoke inspect FILE`: a .pte or .bpte made anywhere."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import option, text


@dataclass(frozen=True)
class InspectTask:
    """`invoke inspect FILE`: what an ExecuTorch program or bundled program holds and
    whether this tool's pinned runtime can run it."""

    file: str = option(help="a .pte or .bpte (sniffed by its flatbuffer identifier, not its "
                       "name)", parse=text, matrix=False, positional=True)
