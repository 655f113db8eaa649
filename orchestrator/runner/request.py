"""The runner-specific part of an `invoke run` request (RunRequest.extra)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.errors import OrchestratorError
from orchestrator.runner.compare import Thresholds
from orchestrator.runner.config import runner_data


@dataclass(frozen=True)
class RunnerRequest:
    """Memory mode, kernel set, pool overrides, compile options, comparison thresholds and
    FVP extras (--fast; pmu_trace writes the Ethos-U PMU trace to the run directory)."""

    memory_mode: str | None = None
    kernel_set: str = field(default_factory=lambda: runner_data().default_kernel_set)
    method_pool: int | None = None
    temp_pool: int | None = None
    fast_scratch: int | None = None
    quantize: str | None = None
    thresholds: Thresholds = Thresholds()
    fast: bool = False
    pmu_trace: bool = False
    sources: Mapping[str, Path] = field(default_factory=dict)
    jobs: int = 2

    @classmethod
    def from_extra(cls, extra: Mapping[str, Any]) -> RunnerRequest:
        """Parse RunRequest.extra (values from the CLI are strings; sizes accept 0x.., K, M)."""
        base = Thresholds()
        thresholds = Thresholds(atol=_float(extra.get("atol"), base.atol),
                                rtol=_float(extra.get("rtol"), base.rtol),
                                qtol=_float(extra.get("qtol"), base.qtol),
                                min_snr_db=_float(extra.get("min_snr"), None),
                                require_top1=bool(extra.get("top1", False)))
        return cls(memory_mode=extra.get("memory_mode"),
                   kernel_set=extra.get("kernel_set") or runner_data().default_kernel_set,
                   method_pool=parse_size(extra.get("method_pool"), "--method-pool"),
                   temp_pool=parse_size(extra.get("temp_pool"), "--temp-pool"),
                   fast_scratch=parse_size(extra.get("fast_scratch"), "--fast-scratch"),
                   quantize=extra.get("quantize"), thresholds=thresholds,
                   fast=bool(extra.get("fast", False)),
                   pmu_trace=bool(extra.get("pmu_trace", False)),
                   sources={k: Path(v) for k, v in (extra.get("sources") or {}).items()},
                   jobs=int(extra.get("jobs") or 2))


def parse_size(text: Any, option: str) -> int | None:
    """'0x100000', '1048576', '512K', '16M' -> bytes; None stays None."""
    if text is None or text == "":
        return None
    if isinstance(text, int):
        return text
    value = str(text).strip().upper()
    scale = {"K": 1024, "M": 1024 * 1024}.get(value[-1:], 1)
    digits = value[:-1] if scale > 1 else value
    try:
        number = int(digits, 0)
    except ValueError:
        raise OrchestratorError(f"{option} {text} is not a size",
                                f"give bytes, e.g. {option} 0x200000 or {option} 2M") from None
    if number <= 0:
        raise OrchestratorError(f"{option} must be positive", f"e.g. {option} 2M")
    return number * scale


def _float(value: Any, default: float | None) -> float | None:
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise OrchestratorError(f"{value} is not a number", "invoke run --help") from None
