"""The stream parser: feed it simulator output in any chunking; it never raises on garbage."""

from __future__ import annotations

import base64
import binascii
import zlib
from dataclasses import dataclass, field

from orchestrator.protocol.frame import Frame, FrameError, decode_frame
from orchestrator.protocol.records import (
    Begin,
    Check,
    End,
    Fault,
    Metric,
    PendingBlob,
    PendingTensor,
    Sample,
    to_int,
)
from orchestrator.protocol.tensors import DTYPES, Tensor, expected_size

MAX_PROBLEMS = 50
MAX_LINE = 64 * 1024


@dataclass
class ParsedStream:
    """Everything the firmware reported, plus what went wrong in transport."""

    begin: Begin | None = None
    end: End | None = None
    metrics: list[Metric] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    tensors: dict[int, Tensor] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    faults: list[Fault] = field(default_factory=list)
    layout: dict[str, str] = field(default_factory=dict)
    samples: list[Sample] = field(default_factory=list)   # a sample session's input sets
    other: list[Frame] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    frames: int = 0
    corrupt: int = 0
    lines: int = 0

    @property
    def complete(self) -> bool:
        """Begin and end seen, every record accounted for, no damaged or partial record."""
        return (self.begin is not None and self.end is not None and not self.problems
                and self.end.records == self.frames)

    def metric(self, name: str) -> Metric | None:
        """The last metric called `name`."""
        return next((m for m in reversed(self.metrics) if m.name == name), None)


class StreamParser:
    """Incremental parser of the UART result protocol mixed with ordinary text."""

    def __init__(self) -> None:
        self.result = ParsedStream()
        self._partial = ""
        self._pending: dict[int, PendingTensor] = {}
        self._blobs: dict[str, PendingBlob] = {}

    def feed(self, text: str) -> None:
        """Add output in any chunking; complete lines are parsed at once."""
        data = self._partial + text.replace("\r", "")
        *lines, self._partial = data.split("\n")
        if len(self._partial) > MAX_LINE:
            lines.append(self._partial)
            self._partial = ""
        for line in lines:
            self.feed_line(line)

    def feed_line(self, line: str) -> None:
        """Parse one line (without its newline)."""
        self.result.lines += 1
        try:
            frame = decode_frame(line)
        except FrameError as error:
            self.result.corrupt += 1
            self._problem(f"line {self.result.lines}: {error}")
            return
        except Exception as error:  # noqa: BLE001 - garbage must never stop the parser
            self._problem(f"line {self.result.lines}: unparsable ({type(error).__name__})")
            return
        if frame is not None:
            try:
                self._accept(frame)
            except Exception as error:  # noqa: BLE001
                self._problem(f"line {self.result.lines}: bad {frame.type} record ({error})")

    def finish(self) -> ParsedStream:
        """Flush the last partial line and any unfinished tensors; return the result."""
        if self._partial:
            partial, self._partial = self._partial, ""
            self.feed_line(partial)
        self._complete_all()
        return self.result

    def _problem(self, text: str) -> None:
        if len(self.result.problems) < MAX_PROBLEMS:
            self.result.problems.append(text)

    def _accept(self, frame: Frame) -> None:
        result = self.result
        if frame.type == "begin":
            if result.begin is not None:
                self._problem("a second begin record: the firmware restarted")
            self.result = ParsedStream(begin=Begin.from_frame(frame), lines=result.lines,
                                       problems=result.problems, corrupt=result.corrupt)
            self._pending.clear()
            self._blobs.clear()
            return
        if frame.type == "end":
            self._complete_all()
            result.end = End.from_frame(frame)
            return
        result.frames += 1
        handler = _HANDLERS.get(frame.type)
        if handler is None:
            result.other.append(frame)
        else:
            handler(self, frame)

    def _on_metric(self, frame: Frame) -> None:
        self.result.metrics.append(Metric.from_frame(frame))

    def _on_check(self, frame: Frame) -> None:
        self.result.checks.append(Check.from_frame(frame))

    def _on_fault(self, frame: Frame) -> None:
        self.result.faults.append(Fault.from_frame(frame))

    def _on_layout(self, frame: Frame) -> None:
        self.result.layout.update(frame.fields)

    def _on_tensor(self, frame: Frame) -> None:
        fields = frame.fields
        index, nbytes, chunks = (to_int(fields.get(key)) for key in ("index", "nbytes", "chunks"))
        dtype = fields.get("dtype", "")
        if index is None or nbytes is None or chunks is None or dtype not in DTYPES:
            raise ValueError("tensor header needs index, a known dtype, nbytes and chunks")
        shape_text = fields.get("shape", "")
        shape = tuple(int(dim) for dim in shape_text.split(",")) if shape_text else ()
        self._pending[index] = PendingTensor(index, dtype, shape, nbytes, chunks,
                                             to_int(fields.get("crc")))

    def _on_sample(self, frame: Frame) -> None:
        for pending in list(self._pending.values()):
            self._complete_tensor(pending)
        self._pending.clear()
        self.result.samples.append(Sample.from_frame(frame, self.result.tensors))
        self.result.tensors = {}

    def _on_tdata(self, frame: Frame) -> None:
        index, seq = to_int(frame.fields.get("index")), to_int(frame.fields.get("seq"))
        pending = self._pending.get(index) if index is not None else None
        if pending is None or seq is None:
            raise ValueError("data for a tensor without a header")
        pending.parts[seq] = _chunk(frame)

    def _on_blob(self, frame: Frame) -> None:
        fields = frame.fields
        name = fields.get("name", "")
        nbytes, chunks = to_int(fields.get("nbytes")), to_int(fields.get("chunks"))
        if not name or nbytes is None or chunks is None:
            raise ValueError("blob header needs name, nbytes and chunks")
        self._blobs[name] = PendingBlob(name, nbytes, chunks, to_int(fields.get("crc")))

    def _on_bdata(self, frame: Frame) -> None:
        pending = self._blobs.get(frame.fields.get("name", ""))
        seq = to_int(frame.fields.get("seq"))
        if pending is None or seq is None:
            raise ValueError("data for a blob without a header")
        pending.parts[seq] = _chunk(frame)

    def _complete_all(self) -> None:
        """Assemble every tensor and blob whose header arrived (at end or at the stream's end)."""
        for pending in list(self._pending.values()):
            self._complete_tensor(pending)
        for blob in list(self._blobs.values()):
            data = self._assemble(f"blob {blob.name}", blob.parts, blob.chunks, blob.crc)
            if data is not None and len(data) != blob.nbytes:
                self._problem(f"blob {blob.name}: {len(data)} bytes, header says {blob.nbytes}")
            elif data is not None:
                self.result.blobs[blob.name] = data
        self._pending.clear()
        self._blobs.clear()

    def _assemble(self, label: str, parts: dict[int, bytes], chunks: int,
                  crc: int | None) -> bytes | None:
        """The payload from its chunks; None (and a problem) when one is missing or the
        checksum does not match."""
        missing = [seq for seq in range(chunks) if seq not in parts]
        if missing:
            self._problem(f"{label}: {len(missing)} of {chunks} data chunks missing")
            return None
        data = b"".join(parts[seq] for seq in range(chunks))
        if crc is not None and zlib.crc32(data) != crc:
            self._problem(f"{label}: data checksum mismatch")
            return None
        return data

    def _complete_tensor(self, pending: PendingTensor) -> None:
        data = self._assemble(f"tensor {pending.index}", pending.parts, pending.chunks, None)
        if data is None:
            return
        wanted = expected_size(pending.dtype, pending.shape)
        if len(data) != pending.nbytes or len(data) != wanted:
            self._problem(f"tensor {pending.index}: {len(data)} bytes, header says "
                          f"{pending.nbytes}, {pending.dtype}{list(pending.shape)} needs {wanted}")
            return
        if pending.crc is not None and zlib.crc32(data) != pending.crc:
            self._problem(f"tensor {pending.index}: data checksum mismatch")
            return
        self.result.tensors[pending.index] = Tensor(pending.index, pending.dtype,
                                                    pending.shape, data)


def _chunk(frame: Frame) -> bytes:
    """The raw bytes of one tdata/bdata record."""
    try:
        return base64.b64decode(frame.fields.get("b64", ""), validate=True)
    except binascii.Error as error:
        raise ValueError(f"bad base64 ({error})") from None


_HANDLERS = {
    "metric": StreamParser._on_metric,
    "check": StreamParser._on_check,
    "fault": StreamParser._on_fault,
    "layout": StreamParser._on_layout,
    "tensor": StreamParser._on_tensor,
    "tdata": StreamParser._on_tdata,
    "sample": StreamParser._on_sample,
    "blob": StreamParser._on_blob,
    "bdata": StreamParser._on_bdata,
}


def parse_text(text: str) -> ParsedStream:
    """Parse a whole transcript at once."""
    parser = StreamParser()
    parser.feed(text)
    return parser.finish()
