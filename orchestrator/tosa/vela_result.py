"""What ExecuTorch's Vela step returns, across the releases a toolset may hold.

v1.4.x: `EthosUBackend._compile_tosa_flatbuffer` returns the VelaBinStream as bytes.
v1.5.x: it returns a VelaCompileResult (backends/arm/arm_vela.py): `processed_bytes`, the
stream, and `external_blocks`, payloads (commands, weights) a compile spec asked to keep
outside the .pte as named data (upstream PR 21893); the stream then holds their digests.
"""

from __future__ import annotations

from typing import Any

from orchestrator.foundation.errors import OrchestratorError


def stream_bytes(result: Any) -> bytes:
    """The VelaBinStream of a Vela step's result, whichever release made it."""
    if isinstance(result, bytes | bytearray | memoryview):
        return bytes(result)
    processed = getattr(result, "processed_bytes", None)
    if processed is None:
        raise OrchestratorError(
            f"ExecuTorch's Vela step returned a {type(result).__name__}, which this tool "
            "does not know", "use a toolset with executorch 1.4 or 1.5 (invoke toolsets)")
    return bytes(processed)


def external_block_count(result: Any) -> int:
    """How many payloads the Vela step placed outside the stream (0 before v1.5)."""
    return len(getattr(result, "external_blocks", ()) or ())
