"""The exact-reference record a product manifest carries (no torch)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MANIFEST_KEY = "exact_reference"
EXACT = "exact"          # reference_exact/ holds the program's own integer-exact outputs
FALLBACK = "fallback"    # an op has no exact host implementation: the quantized model's
FLOAT = "float"          # a float program: compared with tolerances, as before


@dataclass(frozen=True)
class ExactRecord:
    """How a product's expected outputs were computed."""

    status: str
    ops: dict[str, str | None] = field(default_factory=dict)
    unsupported_ops: tuple[str, ...] = ()
    reason: str = ""
    output_quantization: tuple[dict[str, Any] | None, ...] = ()

    @property
    def exact(self) -> bool:
        return self.status == EXACT

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "ops": dict(self.ops),
                "unsupported_ops": list(self.unsupported_ops), "reason": self.reason,
                "output_quantization": list(self.output_quantization)}

    @classmethod
    def from_manifest(cls, manifest: dict[str, Any]) -> ExactRecord:
        data = manifest.get(MANIFEST_KEY)
        if not data:
            return cls(status=FALLBACK, reason="compiled before exact references existed")
        return cls(status=data["status"], ops=dict(data.get("ops") or {}),
                   unsupported_ops=tuple(data.get("unsupported_ops") or ()),
                   reason=data.get("reason", ""),
                   output_quantization=tuple(data.get("output_quantization") or ()))
