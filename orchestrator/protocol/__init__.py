"""The UART result protocol (firmware/PROTOCOL.md): framing, records and the stream parser."""

from __future__ import annotations

from orchestrator.protocol.frame import MAGIC, PROTOCOL_VERSION, Frame, decode_frame, encode_frame
from orchestrator.protocol.stream import ParsedStream, StreamParser, parse_text
from orchestrator.protocol.tensors import DTYPES, Tensor

__all__ = [
    "DTYPES",
    "MAGIC",
    "PROTOCOL_VERSION",
    "Frame",
    "ParsedStream",
    "StreamParser",
    "Tensor",
    "decode_frame",
    "encode_frame",
    "parse_text",
]
