"""Typed protocol records built from checked frames (firmware/PROTOCOL.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

from orchestrator.protocol.frame import Frame
from orchestrator.protocol.tensors import Tensor

# Configurable Fault Status Register bits (Armv8-M ARM, B3.2.15), for readable reports.
CFSR_BITS = {
    0: "IACCVIOL", 1: "DACCVIOL", 3: "MUNSTKERR", 4: "MSTKERR", 5: "MLSPERR", 7: "MMARVALID",
    8: "IBUSERR", 9: "PRECISERR", 10: "IMPRECISERR", 11: "UNSTKERR", 12: "STKERR",
    13: "LSPERR", 15: "BFARVALID", 16: "UNDEFINSTR", 17: "INVSTATE", 18: "INVPC", 19: "NOCP",
    20: "STKOF", 24: "UNALIGNED", 25: "DIVBYZERO",
}


def to_int(text: str | None) -> int | None:
    """'123', '-4' or '0x1f' as an int; None when absent or not a number."""
    if text is None:
        return None
    try:
        return int(text, 0)
    except ValueError:
        return None


@dataclass(frozen=True)
class Begin:
    """The first record: which app, protocol version, platform and build id are running."""

    app: str
    proto: int | None
    platform: str
    build_id: str

    @classmethod
    def from_frame(cls, frame: Frame) -> Begin:
        fields = frame.fields
        return cls(app=fields.get("app", ""), proto=to_int(fields.get("proto")),
                   platform=fields.get("platform", ""), build_id=fields.get("build", ""))


@dataclass(frozen=True)
class Metric:
    """A named measurement with its unit and where it came from (e.g. cycles from systick)."""

    name: str
    value: int
    unit: str
    source: str | None = None

    @classmethod
    def from_frame(cls, frame: Frame) -> Metric:
        value = to_int(frame.fields.get("value"))
        if value is None:
            raise ValueError("metric without an integer value")
        return cls(name=frame.fields.get("name", ""), value=value,
                   unit=frame.fields.get("unit", ""), source=frame.fields.get("source"))


@dataclass(frozen=True)
class Check:
    """A self-check the firmware ran: passed or not, with what it got and expected."""

    name: str
    ok: bool
    got: int | None = None
    expected: int | None = None

    @classmethod
    def from_frame(cls, frame: Frame) -> Check:
        fields = frame.fields
        return cls(name=fields.get("name", ""), ok=fields.get("ok") == "1",
                   got=to_int(fields.get("got")), expected=to_int(fields.get("expected")))


@dataclass(frozen=True)
class Fault:
    """A CPU fault: kind, PC, LR, xPSR, status registers and the faulting address."""

    kind: str
    pc: int | None
    lr: int | None
    xpsr: int | None
    cfsr: int | None
    hfsr: int | None
    address: int | None = None
    exc_return: int | None = None

    @classmethod
    def from_frame(cls, frame: Frame) -> Fault:
        fields = frame.fields
        return cls(kind=fields.get("kind", "?"), pc=to_int(fields.get("pc")),
                   lr=to_int(fields.get("lr")), xpsr=to_int(fields.get("xpsr")),
                   cfsr=to_int(fields.get("cfsr")), hfsr=to_int(fields.get("hfsr")),
                   address=to_int(fields.get("address")),
                   exc_return=to_int(fields.get("exc_return")))

    @property
    def causes(self) -> list[str]:
        """Names of the CFSR bits that are set."""
        return [name for bit, name in CFSR_BITS.items() if (self.cfsr or 0) >> bit & 1]

    def describe(self) -> str:
        """One line: kind, PC, LR, causes and address."""
        parts = [f"{self.kind} fault at PC 0x{self.pc or 0:08x} (LR 0x{self.lr or 0:08x})"]
        if self.causes:
            parts.append("/".join(self.causes))
        if self.address is not None:
            parts.append(f"address 0x{self.address:08x}")
        return ", ".join(parts)


@dataclass(frozen=True)
class End:
    """The last record: status, exit code, and how many records the firmware sent."""

    status: str
    code: int | None
    records: int | None

    @classmethod
    def from_frame(cls, frame: Frame) -> End:
        fields = frame.fields
        return cls(status=fields.get("status", ""), code=to_int(fields.get("code")),
                   records=to_int(fields.get("records")))


@dataclass
class PendingTensor:
    """A tensor header whose data chunks are still arriving."""

    index: int
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    chunks: int
    crc: int | None
    parts: dict[int, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class Sample:
    """One finished input set of a sample session: its outputs and the cycles it took (the
    `sample` record closes the tensors reported since the previous one)."""

    seq: int                       # position in this session
    index: int                     # position in the data set
    cycles: int
    unit: str
    source: str
    tensors: dict[int, Tensor]

    @classmethod
    def from_frame(cls, frame: Frame, tensors: dict[int, Tensor]) -> Sample:
        fields = frame.fields
        seq, cycles = to_int(fields.get("seq")), to_int(fields.get("value"))
        if seq is None or cycles is None:
            raise ValueError("sample record needs seq and value")
        index = to_int(fields.get("index"))
        return cls(seq=seq, index=seq if index is None else index, cycles=cycles,
                   unit=fields.get("unit", ""), source=fields.get("source", ""),
                   tensors=dict(tensors))


@dataclass
class PendingBlob:
    """A blob header (an opaque named payload, e.g. an ETDump) whose chunks are arriving."""

    name: str
    nbytes: int
    chunks: int
    crc: int | None
    parts: dict[int, bytes] = field(default_factory=dict)
