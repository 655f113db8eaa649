"""Write checks on a compiled program: an NPU operation that changes bytes another live tensor
still holds, in the scratch (region 1) or the fast scratch (region 2) (a finding about the
program Vela emitted, not a model failure).

The .pte carries no allocation table, so liveness is derived from the run itself: each scratch
byte belongs to the operation that last wrote it (the addresses its OFM was stored at, and any
byte it changed) (the placed inputs each to its input); a
tensor is that operation's bytes. Operation k clobbers tensor j when it changes bytes j still
owns and a later operation m still reads bytes j owns (what its IFM/IFM2 registers address):
j was live when k wrote over it. An operation whose OFM registers address some byte for two
elements writes past the tensor it was given over its own output (reader: itself).

Stripes of one tensor are one tensor: Vela computes a tensor in row stripes into a rolling
buffer (U65/U85 cascades keep them in the fast scratch), each stripe an operation writing over
rows the stripe before it held that its consumer has read. A stripe k over stripe j of the same
producer (same command; same region, width, depth, element size and strides of the OFM and of
each operand it reads) is not a clobber. Without that, mv2 on ethos-u85-128 and -2048 drew 57
false findings in region 2 (45 when only a refill the reader also read was forgiven). The
price: two distinct operations of exactly that geometry (repeated blocks) are one producer to
the check, so a write of one over the other is not named.

The check streams: each operation is seen once and dropped; what stays is the owner of every
byte (an int32 per byte of each watched region), each tensor's byte count, and the writes over
tensors still holding bytes (as spans), so memory does not grow with the stream's length.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import (
    FAST_SCRATCH_BYTES,
    FAST_SCRATCH_REGION,
    SCRATCH_REGION,
    Npu,
)
from orchestrator.npu_model.observe import ObservedOp, observe_stream
from orchestrator.npu_model.spans import Spans, span_bytes, spans_of

UNOWNED = -1     # never written in this run
DMA = -2         # staged by a DMA (weights, scales, LUTs): not a tensor
FIRST_INPUT = -3  # owner of the bytes input 0 was placed in; input k's: FIRST_INPUT - k
NEXT_STEP = ("split the packed projection into separate ones, or compile with another Vela "
             "optimisation: invoke verify --vela-flags '--optimise Size' (Vela's default is "
             "--optimise Performance)")
REGION_NAMES = {SCRATCH_REGION: "scratch", FAST_SCRATCH_REGION: "fast scratch"}


def input_owner(index: int) -> int:
    """The owner id of the bytes input `index` was placed in: each input is its own tensor."""
    return FIRST_INPUT - index


def input_index(owner: int) -> int:
    return FIRST_INPUT - owner


@dataclass(frozen=True)
class Clobber:
    """Operation `writer` changed [start, end) of `region` while tensor `owner` (an operation
    index, or input_owner(k) for input k) held it, and operation `reader` read that tensor
    afterwards."""

    writer: int
    writer_command: str
    start: int
    end: int
    owner: int
    reader: int
    region: int = SCRATCH_REGION

    def to_json(self) -> dict[str, Any]:
        return {"operation": self.writer, "command": self.writer_command,
                "region": self.region, "scratch_range": [self.start, self.end],
                "clobbers": self.owner_name(), "read_by_operation": self.reader}

    def owner_name(self) -> str:
        if self.owner == self.writer:
            return "its own OFM (its registers address overlapping elements)"
        if self.owner >= 0:
            return f"the OFM of operation {self.owner}"
        return f"input {input_index(self.owner)}"

    def sentence(self) -> str:
        where = f"{REGION_NAMES.get(self.region, f'region {self.region}')} bytes"
        if self.owner == self.writer:
            return (f"the compiled program writes past a tensor: NPU operation {self.writer} "
                    f"({self.writer_command}) addresses {where} {self.start}.."
                    f"{self.end - 1} for more than one element, over its own output; "
                    f"next: {NEXT_STEP}")
        return (f"the compiled program writes over a live tensor: NPU operation {self.writer} "
                f"({self.writer_command}) writes {where} {self.start}..{self.end - 1}, "
                f"still held by {self.owner_name()} and read by operation {self.reader}; "
                f"next: {NEXT_STEP}")


@dataclass(frozen=True)
class _Overwrite:
    """Operation `writer` wrote `spans` of `region` over bytes the victim tensor held."""

    writer: int
    command: str
    region: int
    spans: Spans


class WriteChecker:
    """Ownership of the watched regions over an observed run, one operation at a time."""

    def __init__(self, sizes: dict[int, int]) -> None:
        self.owner = {region: np.full(size, UNOWNED, dtype=np.int32)
                      for region, size in sizes.items()}
        self.held: Counter[int] = Counter()      # bytes each tensor still holds
        self.overwrites: dict[int, list[_Overwrite]] = {}   # by victim
        self.producer: dict[int, tuple[Any, ...]] = {}      # a stripe's producer signature
        self.found: list[Clobber] = []

    def place(self, region: int, spans: Spans, owner: int) -> None:
        self._own(region, span_bytes(spans), owner)

    def _own(self, region: int, where: np.ndarray[Any, Any], owner: int) -> None:
        previous = self.owner[region][where]
        for tensor, count in zip(*np.unique(previous, return_counts=True), strict=True):
            if int(tensor) == owner:
                continue
            self.held[owner] += int(count)
            self.held[int(tensor)] -= int(count)
            if self.held[int(tensor)] <= 0:
                del self.held[int(tensor)]
                self.overwrites.pop(int(tensor), None)   # nothing of it left to read
        self.owner[region][where] = owner

    def see(self, op: ObservedOp) -> None:
        if op.index < 0:
            for region, spans in op.writes.items():
                if region in self.owner:
                    self.place(region, spans, DMA)
            return
        readers: set[int] = set()
        for region, spans in op.reads:
            if region in self.owner:
                readers.update(np.unique(self.owner[region][span_bytes(spans)]).tolist())
        self._judge_reads(op, readers)
        if op.stripe_of is not None:
            self.producer[op.index] = op.stripe_of
        for region, spans in op.writes.items():
            if region in self.owner:
                self._record_overwrites(op, region, span_bytes(spans))
        if op.overlapping.size:
            self.found.append(Clobber(op.index, op.name, int(op.overlapping.min()),
                                      int(op.overlapping.max()) + 1, op.index, op.index,
                                      op.ofm_region))

    def _one_tensor(self, writer: int, victim: int) -> bool:
        """Whether writer and victim are stripes of one producer (one tensor)."""
        key = self.producer.get(writer)
        return key is not None and key == self.producer.get(victim)

    def _still_written(self, overwrite: _Overwrite) -> bool:
        return bool(np.any(self.owner[overwrite.region][span_bytes(overwrite.spans)]
                           == overwrite.writer))

    def _judge_reads(self, op: ObservedOp, readers: set[int]) -> None:
        """Name every overwrite of a tensor this operation reads while the writer's bytes
        are still there (each once)."""
        for victim in readers & self.overwrites.keys():
            for overwrite in self.overwrites.pop(victim):
                if self._still_written(overwrite):
                    self.found.append(Clobber(overwrite.writer, overwrite.command,
                                              int(overwrite.spans[0, 0]),
                                              int(overwrite.spans[-1, 1]), victim, op.index,
                                              overwrite.region))

    def _record_overwrites(self, op: ObservedOp, region: int, where: np.ndarray[Any, Any]
                           ) -> None:
        previous = self.owner[region][where]
        victims = (previous != UNOWNED) & (previous != DMA) & (previous != op.index)
        for victim in np.unique(previous[victims]).tolist():
            if self._one_tensor(op.index, int(victim)):
                continue   # a stripe refilling its producer's rolling buffer
            spans = spans_of(where[victims & (previous == victim)])
            self.overwrites.setdefault(int(victim), []).append(
                _Overwrite(op.index, op.name, region, spans))
        self._own(region, where, op.index)


def check_writes(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]]
                 ) -> list[Clobber]:
    """Run the program once, observed, and name every write over a live tensor."""
    checker = WriteChecker({SCRATCH_REGION: max(program.scratch_size, 16),
                            FAST_SCRATCH_REGION: FAST_SCRATCH_BYTES})
    for index, io in enumerate(program.inputs):
        if io.region == SCRATCH_REGION:
            checker.place(io.region, np.array([[io.offset, io.offset + io.nbytes]]),
                          input_owner(index))
    observe_stream(program, npu, inputs, checker.see, keep_ofm=False)
    return checker.found
