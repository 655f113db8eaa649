"""Run a Vela program on the NPU model and keep, per NPU operation, what it reads and stores and
the bytes of its OFM right after it ran (the model's operation observer). On the Ethos-U85 the
observer reports what an operation really stored, not its registers: a chained operation stores
nothing in memory (its OFM is a chain buffer), a transposed OFM is reported with its stored
shape and the operation's axes it holds.

Memory stays bounded on programs of thousands of operations: what an operation read and wrote
is kept as spans (orchestrator.npu_model.spans), the OFM's addresses as its layout (computed when
asked), the regions before it as one copy updated in place, and `observe_stream` hands each
operation to its consumer without keeping it (write checks keep nothing but ownership)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import FAST_SCRATCH_REGION, SCRATCH_REGION, Npu, run_program
from orchestrator.npu_model.hostlib import FeatureMap, Operation
from orchestrator.npu_model.spans import NO_SPANS, Spans, repeated_spans, spans_of

WATCHED_REGIONS = (SCRATCH_REGION, FAST_SCRATCH_REGION)   # where tensors live


@dataclass(frozen=True)
class MapLayout:
    """Where a feature map's elements are in its region (a copy of the observer's fields)."""

    region: int
    offset: int
    height: int
    width: int
    depth: int
    bytes: int
    height0: int
    width0: int
    nhcwb16: int
    stride_x: int
    stride_y: int
    stride_c: int

    @classmethod
    def of(cls, fmap: FeatureMap) -> MapLayout:
        return cls(fmap.region, fmap.offset, fmap.height, fmap.width, fmap.depth, fmap.bytes,
                   fmap.height0, fmap.width0, fmap.nhcwb16, fmap.stride_x, fmap.stride_y,
                   fmap.stride_c)

    def signature(self) -> tuple[int, ...]:
        """What stripes of one tensor share (all but where they start and how many rows)."""
        return (self.region, self.width, self.depth, self.bytes, self.nhcwb16, self.stride_x,
                self.stride_y, self.stride_c)


def fmap_addresses(fmap: FeatureMap | MapLayout, size: int) -> np.ndarray[Any, Any] | None:
    """Byte offsets (height, width, depth, element byte) of a feature map in its region;
    None when it is not in a region, is tiled beyond tile 0, or leaves the region."""
    if fmap.region < 0 or fmap.height0 < fmap.height or fmap.width0 < fmap.width:
        return None
    y = np.arange(fmap.height)[:, None, None, None] * fmap.stride_y
    x = np.arange(fmap.width)[None, :, None, None] * fmap.stride_x
    channels = np.arange(fmap.depth)
    c = ((channels >> 4) * fmap.stride_c + (channels & 15) * fmap.bytes if fmap.nhcwb16
         else channels * fmap.stride_c)[None, None, :, None]
    b = np.arange(fmap.bytes)[None, None, None, :]
    address: np.ndarray[Any, Any] = fmap.offset + y + x + c + b
    if address.min() < 0 or address.max() >= size:
        return None
    return address


@dataclass(frozen=True)
class ObservedOp:
    """One NPU operation: its OFM bytes as stored (height, width, depth, element byte; None when
    not readable, not in memory, or not kept), the bytes it wrote per watched region (what its
    OFM addresses, and any other byte it changed), and per operand (IFM, IFM2) the region and
    bytes it may read. U85: `ofm_axes` is the operation's axis (0 H, 1 W, 2 C) each stored axis
    holds ((0, 1, 2) unless its OFM was stored transposed); `chained_out` / `chained_in`: its
    OFM went to / an input came from a chain buffer inside the NPU."""

    index: int
    name: str
    word: int
    ofm: np.ndarray[Any, Any] | None
    ofm_region: int = -1
    writes: dict[int, Spans] = field(default_factory=dict)
    reads: tuple[tuple[int, Spans], ...] = ()
    overlapping: Spans = field(default_factory=lambda: NO_SPANS)   # in the OFM's region
    ofm_axes: tuple[int, ...] = (0, 1, 2)
    chained_out: bool = False
    chained_in: bool = False
    ofm_shape: tuple[int, ...] = ()   # (height, width, depth, element bytes), also when chained
    ofm_layout: MapLayout | None = None   # where `ofm`'s bytes are in its region
    stripe_of: tuple[Any, ...] | None = None   # what row stripes of one operation share

    @property
    def transposed(self) -> bool:
        return self.ofm_axes != (0, 1, 2)

    @property
    def ofm_at(self) -> np.ndarray[Any, Any] | None:
        """The byte offsets of `ofm`'s elements in its region (computed from its layout)."""
        if self.ofm_layout is None:
            return None
        return fmap_addresses(self.ofm_layout, np.iinfo(np.int64).max)


@dataclass(frozen=True)
class ObservedRun:
    operations: list[ObservedOp]
    outputs: list[bytes]


class _Regions:
    """The watched regions as they were before the operation that just ran."""

    def __init__(self, placed: np.ndarray[Any, Any], fast_size: int) -> None:
        self.before = {SCRATCH_REGION: placed,
                       FAST_SCRATCH_REGION: np.zeros(fast_size, dtype=np.uint8)}

    def changed(self, regions: list[np.ndarray[Any, Any]]) -> dict[int, np.ndarray[Any, Any]]:
        """The byte offsets each watched region changed since the last call."""
        found = {}
        for region, before in self.before.items():
            now = regions[region]
            changed = _changed_bytes(now, before)
            before[changed] = now[changed]
            found[region] = changed
        return found


def _changed_bytes(now: np.ndarray[Any, Any], before: np.ndarray[Any, Any]
                   ) -> np.ndarray[Any, Any]:
    """The offsets where two byte arrays differ, compared eight bytes at a time (a region of
    megabytes after each of thousands of operations)."""
    whole = now.size // 8 * 8
    words = np.flatnonzero(now[:whole].view(np.uint64) != before[:whole].view(np.uint64))
    candidates = np.concatenate([(words[:, None] * 8 + np.arange(8)).reshape(-1),
                                 np.arange(whole, now.size)])
    changed: np.ndarray[Any, Any] = candidates[now[candidates] != before[candidates]]
    return changed


def _operand_reads(op: Operation, regions: list[np.ndarray[Any, Any]]
                   ) -> tuple[tuple[int, Spans], ...]:
    found = []
    for fmap in (op.ifm, op.ifm2):
        if fmap.region in WATCHED_REGIONS:
            size = regions[fmap.region].size
            address = fmap_addresses(fmap, size)
            if address is not None:
                found.append((int(fmap.region), spans_of(address)))
    return tuple(found)


def _stripe_key(op: Operation, name: str) -> tuple[Any, ...] | None:
    """What row stripes of one Vela operation share: the command and the geometry of what it
    reads and stores, all but where they start and how many rows (None: its OFM is not in
    memory). A stripe written over a rolling buffer's wrap has tiles: it has a key too."""
    if op.ofm.region < 0:
        return None
    return (name, *(MapLayout.of(f).signature() for f in (op.ofm, op.ifm, op.ifm2)
                    if f.region >= 0))


def _observed(op: Operation, regions: list[np.ndarray[Any, Any]],
              changed: dict[int, np.ndarray[Any, Any]], keep_ofm: bool) -> ObservedOp:
    name, region = (op.name or b"?").decode(), int(op.ofm.region)
    if op.index < 0:   # a DMA: its writes are its own, no operation's
        return ObservedOp(op.index, name, op.word, None,
                          writes={r: spans_of(c) for r, c in changed.items()})
    in_region = 0 <= region < len(regions)
    ofm_at = fmap_addresses(op.ofm, regions[region].size) if in_region else None
    overlapping = NO_SPANS
    if ofm_at is not None and region in changed:
        changed = {**changed, region: np.concatenate([changed[region], ofm_at.reshape(-1)])}
        overlapping = repeated_spans(ofm_at)   # rows that overlap
    ofm = regions[region][ofm_at] if ofm_at is not None and keep_ofm else None
    return ObservedOp(op.index, name, op.word, ofm, region,
                      {r: spans_of(c) for r, c in changed.items()},
                      _operand_reads(op, regions), overlapping, tuple(op.ofm.axes),
                      op.ofm.chain >= 0, op.ifm.chain >= 0 or op.ifm2.chain >= 0,
                      (op.ofm.height, op.ofm.width, op.ofm.depth, op.ofm.bytes),
                      MapLayout.of(op.ofm) if ofm_at is not None else None,
                      _stripe_key(op, name))


def observe_stream(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]],
                   consume: Callable[[ObservedOp], None], keep_ofm: bool = True) -> list[bytes]:
    """Hand every NPU operation (and DMA, index -1) to `consume` as it completes; the
    program's outputs. `keep_ofm=False`: the operations carry no OFM bytes."""
    watched: list[_Regions] = []

    def observe(op: Operation, regions: list[np.ndarray[Any, Any]]) -> None:
        if not watched:   # the regions as the run started: inputs placed, fast zeroed
            watched.append(_Regions(placed[0], regions[FAST_SCRATCH_REGION].size))
        consume(_observed(op, regions, watched[0].changed(regions), keep_ofm))

    placed: list[np.ndarray[Any, Any]] = []
    return run_program(program, npu, inputs, observe,
                       on_start=lambda scratch: placed.append(scratch.copy()))


def observe_program(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]]
                    ) -> ObservedRun:
    """Every NPU operation (and DMA, index -1) as it ran, and the program's outputs."""
    seen: list[ObservedOp] = []
    outputs = observe_stream(program, npu, inputs, seen.append)
    return ObservedRun(seen, outputs)
