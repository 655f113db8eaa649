"""Read the Vela binary stream ExecuTorch's Ethos-U backend stores in a .pte (the format of
backends/arm/arm_vela.py `vela_compile`, read on the device by runtime/VelaBinStream.cpp):
16-byte block names, a 16-byte length field, data padded to 16 bytes, from "vela_bin_stream"
to "vela_end_stream"."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from orchestrator.errors import OrchestratorError

START = b"vela_bin_stream\0"
END = "vela_end_stream"
NAME_BYTES = 16
HEADER_BYTES = 32
IO_DIMS = 6
IO_FORMAT = "<" + "i" * (IO_DIMS + 3)   # shape[6], elem_size, offset, region


@dataclass(frozen=True)
class VelaIO:
    """Where one input or output of the command stream lives."""

    shape: tuple[int, ...]
    elem_size: int
    offset: int
    region: int

    @property
    def nbytes(self) -> int:
        count = 1
        for dim in self.shape:
            count *= dim
        return count * self.elem_size


@dataclass(frozen=True)
class VelaBlob:
    """One partition's command stream, weights, scratch size and I/O placement."""

    cmd_data: bytes
    weight_data: bytes
    scratch_size: int
    inputs: tuple[VelaIO, ...]
    outputs: tuple[VelaIO, ...]


def _ios(data: bytes) -> tuple[VelaIO, ...]:
    (count,) = struct.unpack_from("<i", data)
    size = struct.calcsize(IO_FORMAT)
    fields = [struct.unpack_from(IO_FORMAT, data, 4 + i * size) for i in range(count)]
    return tuple(VelaIO(tuple(f[:IO_DIMS]), f[IO_DIMS], f[IO_DIMS + 1], f[IO_DIMS + 2])
                 for f in fields)


def _blocks(data: bytes, start: int) -> dict[str, bytes]:
    blocks: dict[str, bytes] = {}
    at = start
    while at + HEADER_BYTES <= len(data):
        name = data[at:at + NAME_BYTES].split(b"\0", 1)[0].decode("ascii", "replace")
        (length,) = struct.unpack_from("<i", data, at + NAME_BYTES)
        blocks[name] = data[at + HEADER_BYTES:at + HEADER_BYTES + length]
        if name == END:
            return blocks
        at += HEADER_BYTES + (length + 15) // 16 * 16
    raise OrchestratorError("a Vela binary stream in the .pte has no end block (truncated?)",
                            "recompile the model: invoke compile --model <model> --target <T>")


def vela_blobs(pte: bytes) -> list[VelaBlob]:
    """Every Vela binary stream in a .pte, in file order."""
    found = []
    at = pte.find(START)
    while at >= 0:
        blocks = _blocks(pte, at)
        (scratch,) = struct.unpack("<I", blocks["scratch_size"])
        found.append(VelaBlob(blocks["cmd_data"], blocks["weight_data"], scratch,
                              _ios(blocks["inputs"]), _ios(blocks["outputs"])))
        at = pte.find(START, at + NAME_BYTES)
    return found
