"""Run a Vela program on the NPU model and keep, per NPU operation, what it reads and stores and
the bytes of its OFM right after it ran (the model's operation observer). On the Ethos-U85 the
observer reports what an operation really stored, not its registers: a chained operation stores
nothing in memory (its OFM is a chain buffer), a transposed OFM is reported with its stored
shape and the operation's axes it holds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from orchestrator.vnpu.binstream import VelaProgram
from orchestrator.vnpu.execute import SCRATCH_REGION, Npu, run_program
from orchestrator.vnpu.hostlib import FeatureMap, Operation


def fmap_addresses(fmap: FeatureMap, size: int) -> np.ndarray[Any, Any] | None:
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
    not readable or not in memory), the scratch bytes it wrote (what its OFM addresses, and any
    other byte it changed), and the scratch bytes its IFMs may read. U85: `ofm_axes` is the
    operation's axis (0 H, 1 W, 2 C) each stored axis holds ((0, 1, 2) unless its OFM was
    stored transposed); `chained_out` / `chained_in`: its OFM went to / an input came from a
    chain buffer inside the NPU."""

    index: int
    name: str
    word: int
    ofm: np.ndarray[Any, Any] | None
    ofm_region: int = -1
    writes: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, np.int64))
    reads: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, np.int64))
    overlapping: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros(0, np.int64))
    ofm_axes: tuple[int, ...] = (0, 1, 2)
    chained_out: bool = False
    chained_in: bool = False
    ofm_shape: tuple[int, ...] = ()   # (height, width, depth, element bytes), also when chained
    ofm_at: np.ndarray[Any, Any] | None = None   # where `ofm`'s bytes are in its region

    @property
    def transposed(self) -> bool:
        return self.ofm_axes != (0, 1, 2)


@dataclass(frozen=True)
class ObservedRun:
    operations: list[ObservedOp]
    outputs: list[bytes]


def _byte_set(size: int, *addresses: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The distinct byte offsets among `addresses`, ascending (a mask: no sort)."""
    mask = np.zeros(size, dtype=bool)
    for address in addresses:
        mask[address.reshape(-1)] = True
    return np.flatnonzero(mask)


def _scratch_reads(op: Operation, size: int) -> np.ndarray[Any, Any]:
    found = [fmap_addresses(fmap, size) for fmap in (op.ifm, op.ifm2)
             if fmap.region == SCRATCH_REGION]
    return _byte_set(size, *(a for a in found if a is not None))


def _addressed_twice(address: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Bytes an OFM's registers address for more than one element (its rows overlap)."""
    return np.flatnonzero(np.bincount(address.reshape(-1)) > 1)


def observe_program(program: VelaProgram, npu: Npu, inputs: Sequence[np.ndarray[Any, Any]]
                    ) -> ObservedRun:
    """Every NPU operation (and DMA, index -1) as it ran, and the program's outputs."""
    seen: list[ObservedOp] = []
    before: list[np.ndarray[Any, Any]] = []

    def observe(op: Operation, regions: list[np.ndarray[Any, Any]]) -> None:
        scratch = regions[SCRATCH_REGION]
        ofm_at = (fmap_addresses(op.ofm, regions[op.ofm.region].size)
                  if 0 <= op.ofm.region < len(regions) else None)
        changed = np.flatnonzero(scratch != before[0])
        overlapping = np.zeros(0, np.int64)
        if ofm_at is not None and op.ofm.region == SCRATCH_REGION:
            changed = _byte_set(scratch.size, changed, ofm_at)
            overlapping = _addressed_twice(ofm_at)
        if op.index < 0:   # a DMA: its writes are its own, no operation's
            seen.append(ObservedOp(op.index, (op.name or b"?").decode(), op.word, None,
                                   writes=np.flatnonzero(scratch != before[0])))
            before[0] = scratch.copy()
            return
        seen.append(ObservedOp(op.index, (op.name or b"?").decode(), op.word,
                               None if ofm_at is None else regions[op.ofm.region][ofm_at],
                               op.ofm.region, changed, _scratch_reads(op, scratch.size),
                               overlapping, tuple(op.ofm.axes), op.ofm.chain >= 0,
                               op.ifm.chain >= 0 or op.ifm2.chain >= 0,
                               (op.ofm.height, op.ofm.width, op.ofm.depth, op.ofm.bytes),
                               ofm_at))
        before[0] = scratch.copy()

    outputs = run_program(program, npu, inputs, observe,
                          on_start=lambda scratch: before.append(scratch.copy()))
    return ObservedRun(seen, outputs)
