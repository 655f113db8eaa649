"""Write checks on a compiled program: an NPU operation that changes bytes another live tensor
still holds (a finding about the program Vela emitted, not a model failure).

The .pte carries no allocation table, so liveness is derived from the run itself: each scratch
byte belongs to the operation that last wrote it (the addresses its OFM was stored at, and any
byte it changed) (the placed inputs each to its input); a
tensor is that operation's bytes. Operation k clobbers tensor j when it changes bytes j still
owns and a later operation m still reads bytes j owns (what its IFM/IFM2 registers address):
j was live when k wrote over it. An operation whose OFM registers address some byte for two
elements writes past the tensor it was given over its own output (reader: itself).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.vnpu.binstream import VelaProgram
from orchestrator.vnpu.execute import SCRATCH_REGION, Npu
from orchestrator.vnpu.observe import ObservedOp, observe_program

UNOWNED = -1     # never written in this run
DMA = -2         # staged by a DMA (weights, scales, LUTs): not a tensor
FIRST_INPUT = -3  # owner of the bytes input 0 was placed in; input k's: FIRST_INPUT - k
NEXT_STEP = ("split the packed projection into separate ones, or compile with another Vela "
             "optimisation: invoke verify --vela-flags '--optimise Size' (Vela's default is "
             "--optimise Performance)")


def input_owner(index: int) -> int:
    """The owner id of the bytes input `index` was placed in: each input is its own tensor."""
    return FIRST_INPUT - index


def input_index(owner: int) -> int:
    return FIRST_INPUT - owner


@dataclass(frozen=True)
class Clobber:
    """Operation `writer` changed [start, end) of scratch while tensor `owner` (an operation
    index, or input_owner(k) for input k) held it, and operation `reader` read that tensor
    afterwards."""

    writer: int
    writer_command: str
    start: int
    end: int
    owner: int
    reader: int

    def to_json(self) -> dict[str, Any]:
        return {"operation": self.writer, "command": self.writer_command,
                "scratch_range": [self.start, self.end], "clobbers": self.owner_name(),
                "read_by_operation": self.reader}

    def owner_name(self) -> str:
        if self.owner == self.writer:
            return "its own OFM (its registers address overlapping elements)"
        if self.owner >= 0:
            return f"the OFM of operation {self.owner}"
        return f"input {input_index(self.owner)}"

    def sentence(self) -> str:
        if self.owner == self.writer:
            return (f"the compiled program writes past a tensor: NPU operation {self.writer} "
                    f"({self.writer_command}) addresses scratch bytes {self.start}.."
                    f"{self.end - 1} for more than one element, over its own output; "
                    f"next: {NEXT_STEP}")
        return (f"the compiled program writes over a live tensor: NPU operation {self.writer} "
                f"({self.writer_command}) writes scratch bytes {self.start}..{self.end - 1}, "
                f"still held by {self.owner_name()} and read by operation {self.reader}; "
                f"next: {NEXT_STEP}")


def _overwrites(owner: np.ndarray[Any, Any], op: ObservedOp) -> dict[int, np.ndarray[Any, Any]]:
    """Bytes op changes that another tensor owned, by that tensor."""
    previous = owner[op.writes]
    keep = (previous != UNOWNED) & (previous != DMA) & (previous != op.index)
    return {int(j): op.writes[keep & (previous == j)] for j in np.unique(previous[keep])}


def find_clobbers(scratch_size: int, placed: Sequence[np.ndarray[Any, Any]],
                  operations: Sequence[ObservedOp]) -> list[Clobber]:
    """Every (writer, clobbered tensor) pair of one observed run, in stream order (`placed`:
    the scratch bytes of each input, each its own tensor)."""
    owner = np.full(scratch_size, UNOWNED, dtype=np.int64)
    for index, spans in enumerate(placed):
        owner[spans] = input_owner(index)
    pending: list[tuple[ObservedOp, int, np.ndarray[Any, Any]]] = []
    found: list[Clobber] = []
    for op in operations:
        if op.index < 0:
            owner[op.writes] = DMA
            continue
        readers = set(np.unique(owner[op.reads]).tolist())
        still = []
        for writer, victim, spans in pending:
            if victim in readers and np.any(owner[spans] == writer.index):
                found.append(Clobber(writer.index, writer.name, int(spans.min()),
                                     int(spans.max()) + 1, victim, op.index))
            else:
                still.append((writer, victim, spans))
        pending = still
        pending += [(op, victim, spans) for victim, spans in _overwrites(owner, op).items()]
        if op.overlapping.size:
            found.append(Clobber(op.index, op.name, int(op.overlapping.min()),
                                 int(op.overlapping.max()) + 1, op.index, op.index))
        owner[op.writes] = op.index
    return found


def check_writes(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]]
                 ) -> list[Clobber]:
    """Run the program once, observed, and name every write over a live tensor."""
    run = observe_program(program, npu, inputs)
    placed = [np.arange(io.offset, io.offset + io.nbytes) for io in program.inputs
              if io.region == SCRATCH_REGION]
    return find_clobbers(max(program.scratch_size, 16), placed, run.operations)
