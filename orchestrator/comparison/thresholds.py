"""When a device's outputs pass: the tolerances and the accuracy gates (the run options
--atol/--rtol/--qtol/--min-snr/--top1 take their defaults from here)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Thresholds:
    """When an output passes: tolerances for float programs and quantized products without an
    exact reference; min_snr_db/require_top1 gate accuracy vs the float model."""

    atol: float = 1e-3
    rtol: float = 1e-3
    qtol: float = 1.0            # extra allowance in quantization steps (quantized reference)
    min_snr_db: float | None = None
    require_top1: bool = False
