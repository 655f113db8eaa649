"""The Ethos-U delegates of a compiled program: VelaBinStream blobs found in the .pte.

Format (executorch backends/arm/arm_vela.py, runtime VelaBinStream.cpp): blocks of a 16-byte
name, an int32 length padded to 16 bytes, and the data padded to 16 bytes, from
"vela_bin_stream" to "vela_end_stream"; the "inputs"/"outputs" blocks hold an int32 count
and per tensor a 6-D shape, element size, offset and region (all int32). From executorch 1.5
a block may be external: its header's flag byte is 1 and its data is the sha256 key of a
named-data payload (orchestrator/aot/assembly/program_info.py VelaBlock); such a block is read from
the named data given, or refused in one line.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from orchestrator.aot.assembly.program_info import VELA_BLOCK_HEADER, VelaBlock, vela_blocks
from orchestrator.foundation.errors import OrchestratorError

START_BLOCK = b"vela_bin_stream".ljust(16, b"\0")
IO_RECORD = struct.Struct("<9i")
REQUIRED_BLOCKS = ("cmd_data", "weight_data", "scratch_size", "inputs", "outputs")


@dataclass(frozen=True)
class VelaIO:
    """One input or output of a delegate: where it lives in the scratch region."""

    shape: tuple[int, ...]
    element_size: int
    offset: int
    region: int

    @property
    def nbytes(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count * self.element_size


@dataclass(frozen=True)
class VelaProgram:
    """A delegate's command stream (COP1 payload), weights, scratch size and I/O."""

    cmd_data: bytes
    weight_data: bytes
    scratch_size: int
    inputs: tuple[VelaIO, ...]
    outputs: tuple[VelaIO, ...]


def _ios(data: bytes) -> tuple[VelaIO, ...]:
    (count,) = struct.unpack_from("<i", data)
    records = []
    for index in range(count):
        *shape, size, offset, region = IO_RECORD.unpack_from(data, 4 + index * IO_RECORD.size)
        records.append(VelaIO(shape=tuple(shape), element_size=size, offset=offset, region=region))
    return tuple(records)


def _block_data(block: VelaBlock, named_data: Mapping[str, bytes]) -> bytes:
    if not block.external:
        return block.data
    key = block.data.decode("ascii", "replace")
    if key not in named_data:
        raise OrchestratorError(
            f"the Ethos-U delegate's {block.name} block is kept outside the stream as named "
            f"data {key[:16]}..., which was not given", "compile without external Vela block "
            "placements (executorch 1.5 EthosUCompileSpec), or pass the .ptd that holds it")
    return named_data[key]


def parse_blob(blob: bytes, named_data: Mapping[str, bytes] | None = None) -> VelaProgram:
    """One VelaBinStream (starting at its "vela_bin_stream" block); external blocks are
    read from `named_data` (key -> payload)."""
    blocks = {block.name: _block_data(block, named_data or {}) for block in vela_blocks(blob)}
    missing = [name for name in REQUIRED_BLOCKS if name not in blocks]
    if missing:
        raise OrchestratorError(f"an Ethos-U delegate blob lacks the {', '.join(missing)} block",
                                "recompile the model: invoke compile --model <model> --target <t>")
    return VelaProgram(cmd_data=blocks["cmd_data"], weight_data=blocks["weight_data"],
                       scratch_size=int(struct.unpack_from("<I", blocks["scratch_size"])[0]),
                       inputs=_ios(blocks["inputs"]), outputs=_ios(blocks["outputs"]))


def find_blobs(data: bytes) -> list[bytes]:
    """Every VelaBinStream in a .pte, in file order (the program's delegate data order)."""
    blobs = []
    start = data.find(START_BLOCK)
    while start >= 0:
        (length,) = struct.unpack_from("<i", data, start + 16)
        if length == 0:
            blobs.append(data[start:])
        start = data.find(START_BLOCK, start + VELA_BLOCK_HEADER)
    return blobs


def programs_in_pte(pte: Path) -> list[VelaProgram]:
    """The Ethos-U delegates of a .pte file, in order."""
    return [parse_blob(blob) for blob in find_blobs(pte.read_bytes())]
