"""Where a partition departs: the first NPU operation whose OFM differs from the TOSA reference
model's tensor it computes.

Each operation's OFM is read from memory right after it ran (the model's operation observer);
the TOSA tensors it may compute are Vela's names for its operations (its per-operation table,
in command-stream order), else the graph's tensors: an OFM is paired with the first tensor
from where the pairing stands whose values it holds, else (departing) with the first of its
shape among the next DEPARTURE_WINDOW, the others of its shape there listed with it. Shape
and order alone can mislead: Vela's table is not quite in stream order (the Conformer on
U55-128 runs the Rescales of single-element constants first, whose one value matched tensors
far ahead), so an OFM that holds an earlier tensor exactly is never named departing, and the
pairing resumes after that tensor. The ExecuTorch Arm backend names each TOSA tensor after the node
of the lowered graph that produced it (the flatbuffers it writes carry no op locations), so the
tensor name is also that FX node's name. The TOSA operators behind it come from
orchestrator.tosa.graph.operators_behind, as in the profile's Vela rows.

Ethos-U85: a chained operation stores nothing in memory (the observer reports no OFM), so the
chain's last operation carries the TOSA operators of the tensors the chain passed inside the
NPU. An OFM stored transposed is compared as stored, only with the TOSA TRANSPOSE output it
holds (orchestrator.npu_model.transposes; none for Vela's own transposes).

An OFM is compared only with what it holds. Operations storing channel stripes of one tensor
are compared together, each with its channels (orchestrator.npu_model.stripes). An OFM shaped like
a tensor that a later operation stores exactly is not named departing: it held part of it or a
tensor Vela keeps to itself, such as the Add of a Rescale Vela splits into an Add and a Mul
(attention int8 on U65-512), or a stripe with another tensor's shape. Vela's table rows of one
operation (a Conv2D and its fused Clamp) are one tensor, so a stripe after it is not compared
with it again (autoencoder a16w8 on U85-512).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from orchestrator.comparison.departure import departure, departure_sentence
from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.execute import Npu
from orchestrator.npu_model.observe import ObservedOp, observe_program
from orchestrator.npu_model.stripes import Stripes, channel_stripes
from orchestrator.npu_model.transposes import (
    ANY_TENSOR,
    COPY_SUFFIX,
    StoredAs,
    VelaTranspose,
    stored_as,
)
from orchestrator.tosa.graph import operators_behind
from orchestrator.tosa.intermediates import run_with_intermediates

DEPARTURE_WINDOW = 3    # how far past the last tensor matched a departing OFM may be named


def _squeezed(shape: Sequence[int]) -> tuple[int, ...]:
    return tuple(int(d) for d in shape if d != 1)


def _shaped_like(shape: Sequence[int], tensor: np.ndarray[Any, Any]) -> bool:
    """Whether an OFM of `shape` (height, width, depth, element bytes) has the tensor's shape
    (size-1 axes aside) and element size."""
    return (len(shape) == 4 and shape[3] == tensor.dtype.itemsize
            and _squeezed(shape[:3]) == _squeezed(tensor.shape))


def _computes(op: ObservedOp, tensor: np.ndarray[Any, Any]) -> bool:
    """Whether the op's OFM is in memory with the tensor's shape and element size."""
    return op.ofm is not None and _shaped_like(op.ofm.shape, tensor)


def _past_chain(chain: Sequence[ObservedOp], names: Sequence[str], start: int,
                reference: dict[str, np.ndarray[Any, Any]]) -> int:
    """Where the tensor a chain's last op stores may be named from when it departs: past the
    tensors its chained ops passed on (nothing in memory to compare: each the first with its
    shape among the next DEPARTURE_WINDOW names). Only for naming a departure: a shape alone
    is too little to follow the stream by."""
    for op in chain:
        position = next((i for i in range(start, min(start + DEPARTURE_WINDOW, len(names)))
                         if _shaped_like(op.ofm_shape, reference[names[i]])), -1)
        start = start if position < 0 else position + 1
    return start


def candidate_tensors(vela_names: Sequence[str],
                      reference: dict[str, np.ndarray[Any, Any]]) -> list[str]:
    """The TOSA tensors the stream computes, in its order: Vela's operation names (a
    MemoryCopy's "<tensor>_copy" is that tensor, stored again; consecutive rows of one name,
    such as a Conv2D and the Clamp fused into it, are one operation), else the graph's
    tensors."""
    names = [name.removesuffix(COPY_SUFFIX) for name, _rows in itertools.groupby(vela_names)]
    return [name for name in names if name in reference] or list(reference)


def _as_values(ofm: np.ndarray[Any, Any], like: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    dtype = np.dtype(like.dtype).newbyteorder("<")
    values: np.ndarray[Any, Any] = np.ascontiguousarray(ofm).view(dtype).reshape(ofm.shape[:3])
    return values


def _matching(op: ObservedOp, names: Sequence[str], start: int,
              reference: dict[str, np.ndarray[Any, Any]], stored: StoredAs = ANY_TENSOR
              ) -> tuple[int, dict[str, Any] | None]:
    """(position in `names`, departure or None) of the tensor op `op` completes: the first from
    `start` with its shape whose values it has, else the first with its shape among the next
    DEPARTURE_WINDOW (departing; further ahead a shape alone says too little); (-1, None) when
    none has its shape (a stripe, an internal tensor such as a transpose's first pass). Only
    the tensors `stored` allows are candidates (a transposed store's)."""
    shaped = [i for i in range(start, len(names)) if _computes(op, reference[names[i]])
              and (stored.tensors is None or names[i] in stored.tensors)]
    if op.ofm is None or not shaped:
        return -1, None
    departures = []
    for position in shaped:
        want = reference[names[position]]
        found = departure(_as_values(op.ofm, want).reshape(want.shape), want)
        if found is None:
            return position, None
        departures.append(found.to_json())
    if shaped[0] >= start + DEPARTURE_WINDOW or not stored.may_depart:
        return -1, None
    return shaped[0], departures[0]


def _named_past_chain(op: ObservedOp, chain: Sequence[ObservedOp], names: Sequence[str],
                      start: int, reference: dict[str, np.ndarray[Any, Any]], stored: StoredAs,
                      departing: tuple[int, dict[str, Any]]) -> tuple[int, dict[str, Any]]:
    """A departing chain end named past the tensors its chain passed on (they share its shape
    in a fused block), when one of its shape departs there; else as first found."""
    position, found = _matching(op, names, _past_chain(chain, names, start, reference),
                                reference, stored)
    return departing if found is None else (position, found)


def _stored_later(tensor: str, op: ObservedOp, operations: Sequence[ObservedOp],
                  reference: dict[str, np.ndarray[Any, Any]], stored: dict[int, StoredAs]
                  ) -> bool:
    """Whether an operation after `op` stores `tensor` with exactly its values: then `op`,
    though shaped like it, did not complete it. It computed a part of it (a stripe: some of
    its channels or rows, matched by shape to a tensor the stripe does not hold) or a
    tensor Vela keeps to itself (the Add of a Rescale Vela splits into an Add and a Mul,
    named "<tensor>_int32" in its table, not in the TOSA graph): its OFM is not comparable
    with any TOSA tensor, and a departure there would be one that is not."""
    return any(later.index > op.index and later.ofm is not None
               and _matching(later, [tensor], 0, reference, stored[later.index]) == (0, None)
               for later in operations if later.index >= 0)


def _operators(tosa: bytes, names: Sequence[str], position: int, chained: Sequence[str]
               ) -> list[str]:
    """The TOSA operators behind names[position]: with those of `chained` (tensors a chain
    passed inside the NPU to the operation that stored names[position])."""
    stops = [name for name in dict.fromkeys(names) if name not in chained]
    return operators_behind(tosa, stops).get(names[position], [])


def _stripe_departure(stripes: Stripes, want: np.ndarray[Any, Any]
                      ) -> tuple[ObservedOp, dict[str, Any]] | None:
    """The first stripe (stream order) departing from the channels of `want` it holds, with
    its departure (indices within the stripe; `channels`: the tensor's channels it holds)."""
    height, width, depth, _element = stripes.ofm.shape
    channels = want.reshape(height, width, depth)
    for op, first in zip(stripes.operations, stripes.first_channels, strict=True):
        if op.ofm is None:
            continue
        last = first + op.ofm.shape[2]
        found = departure(_as_values(op.ofm, want), channels[:, :, first:last])
        if found is not None:
            return op, {**found.to_json(), "channels": [first, last]}
    return None


def _stripes_ending(pending: Sequence[ObservedOp]) -> list[Stripes]:
    """The channel stripes the last of `pending` may end, longest first."""
    found = (channel_stripes(pending[-length:]) for length in range(len(pending), 1, -1))
    return [stripes for stripes in found if stripes is not None]


def _matching_stripes(pending: Sequence[ObservedOp], names: Sequence[str], start: int,
                      reference: dict[str, np.ndarray[Any, Any]]
                      ) -> tuple[int, tuple[ObservedOp, dict[str, Any]] | None]:
    """(position in `names`, departing stripe or None) of the tensor the stripes the last of
    `pending` ends complete, as _matching; (-1, None) when they make no tensor ahead."""
    for stripes in _stripes_ending(pending):
        whole = dataclasses.replace(stripes.operations[-1], ofm=stripes.ofm)
        position, found = _matching(whole, names, start, reference)
        if position >= 0:
            return position, (None if found is None
                              else _stripe_departure(stripes, reference[names[position]]))
    return -1, None


def _named(op: ObservedOp, tensor: str, operators: list[str], found: dict[str, Any]
           ) -> dict[str, Any]:
    return {"operation": op.index, "command": op.name, "word": op.word, "tosa_tensor": tensor,
            "fx_node": tensor, "tosa_operators": operators, **found}


def _held_earlier(op: ObservedOp, names: Sequence[str], start: int,
                  reference: dict[str, np.ndarray[Any, Any]], stored: StoredAs) -> int:
    """The last position before `start` of a tensor whose values the op's OFM holds exactly
    (-1: none). Such an op is not departing: it stored that tensor again (a copy Vela makes
    under a name of its own) or the pairing ran past it, and comparing it with a later tensor
    of its shape would name a correct operation (Conformer on U55-128: NPU operation 15 holds
    the first layer norm's output and was named departing from a later tensor shaped alike)."""
    return next((position for position in range(start - 1, -1, -1)
                 if _matching(op, [names[position]], 0, reference, stored) == (0, None)), -1)


def _alike_ahead(op: ObservedOp, names: Sequence[str], position: int,
                 reference: dict[str, np.ndarray[Any, Any]]) -> list[str]:
    """The tensors of the op's shape a departing OFM could compute, names[position] first (the
    next DEPARTURE_WINDOW): with more than one, order and shape paired it, and the report says
    which it could be."""
    window = names[position:position + DEPARTURE_WINDOW]
    alike = [name for name in dict.fromkeys(window) if op.ofm is not None
             and _computes(op, reference[name])]
    return alike if len(alike) > 1 else []


@dataclasses.dataclass
class _Pairing:
    """How far the stream has produced the candidate tensors: `start`, the first that may come
    next, and the positions an OFM held exactly (produced). An OFM holding a tensor before
    `start` shows the pairing ran past tensors not yet produced (single-element tensors a
    Rescale of a constant holds, matched by their one value far ahead, on the Conformer): it
    resumes at the first tensor after that one no OFM has held."""

    start: int = 0
    produced: set[int] = dataclasses.field(default_factory=set)

    def held(self, position: int) -> None:
        if position >= 0:
            self.produced.add(position)
            self.start = position + 1

    def resume_after(self, position: int) -> None:
        self.produced.add(position)
        self.start = next(i for i in itertools.count(position + 1) if i not in self.produced)


def first_departure(tosa: bytes, operations: Sequence[ObservedOp], names: Sequence[str],
                    reference: dict[str, np.ndarray[Any, Any]], stored: dict[int, StoredAs]
                    ) -> dict[str, Any] | None:
    """The first of the observed operations whose OFM departs from the TOSA tensor it
    computes, `names` the candidate tensors in stream order (candidate_tensors). An OFM that
    holds any tensor of its shape exactly, earlier ones included, is not departing."""
    pairing, chain, pending = _Pairing(), [], list[ObservedOp]()
    for op in (op for op in operations if op.index >= 0):
        if op.chained_out:   # nothing in memory to compare: it passes its tensor on
            chain.append(op)
            continue
        start = pairing.start
        position, found = _matching(op, names, start, reference, stored[op.index])
        if found is not None and op.chained_in:
            position, found = _named_past_chain(op, chain, names, start, reference,
                                                stored[op.index], (position, found))
        if found is not None and _stored_later(names[position], op, operations, reference,
                                               stored):
            position, found = -1, None   # a part of it, or a tensor Vela keeps to itself
        earlier = -1 if found is None else _held_earlier(op, names, start, reference,
                                                          stored[op.index])
        if earlier >= 0:
            pairing.resume_after(earlier)
            chain, pending = [], []
            continue
        if found is not None:
            chained = names[start:position] if op.chained_in else []
            return _named(op, names[position], _operators(tosa, names, position, chained),
                          {**found, "alike": _alike_ahead(op, names, position, reference)})
        pending = [*pending, op] if position < 0 else []
        if position < 0:
            position, striped = _matching_stripes(pending, names, start, reference)
            if striped is not None and not _stored_later(names[position], op, operations,
                                                         reference, stored):
                return _named(striped[0], names[position],
                              _operators(tosa, names, position, []), striped[1])
            pending = pending if position < 0 else []
        pairing.held(position)
        chain = []
    return None


def locate_departure(tosa: bytes, program: VelaProgram, npu: Npu,
                     inputs: Sequence[np.ndarray[Any, Any]], vela_names: Sequence[str] = (),
                     transposes: Sequence[VelaTranspose] = ()) -> dict[str, Any] | None:
    """The first NPU operation whose OFM departs from the TOSA reference (None if none);
    `transposes`: the transposed stores Vela's table lists (vela_transposes). Operations
    storing channel stripes of a tensor are compared, together, when the last has run."""
    reference = run_with_intermediates(tosa, inputs)
    operations = observe_program(program, npu, inputs).operations
    return first_departure(tosa, operations, candidate_tensors(vela_names, reference),
                           reference, stored_as(operations, transposes, tosa))


def _held(found: dict[str, Any]) -> str:
    """Which channels of the tensor a stripe holds, when the operation named is one."""
    if "channels" not in found:
        return ""
    first, last = found["channels"]
    return f" (its channels {first}..{last - 1}, one stripe)"


def _alike(found: dict[str, Any]) -> str:
    """Which tensors a departing OFM, paired by order and shape, may compute instead."""
    alike = found.get("alike") or []
    return (f" (compared with the first of the tensors of its shape next in order, "
            f"{', '.join(alike)}: it departs from each)" if alike else "")


def describe_departure(found: dict[str, Any]) -> str:
    """One sentence naming the operation and its first and worst element."""
    return (f"first departure at NPU operation {found['operation']} ({found['command']}, "
            f"stream word {found['word']}) implementing "
            f"{'+'.join(found['tosa_operators']) or '?'} -> {found['tosa_tensor']}"
            f"{_held(found)}{_alike(found)}: {departure_sentence(found, 'NPU', 'TOSA')}")
