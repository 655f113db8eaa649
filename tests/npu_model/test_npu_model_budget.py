"""Memory on large programs: what an operation read and wrote is kept as spans (no index per
byte), and a partition whose check would not fit in the memory available is refused in one
line before it runs (benchmarks/bench_npu_model_memory.py measures the peak on DeiT-tiny)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.npu_model.binstream import VelaProgram
from orchestrator.npu_model.budget import available_bytes, ensure_fits, needed_bytes
from orchestrator.npu_model.spans import span_bytes, span_count, spans_of

TOSA = (Path(__file__).parents[1] / "fixtures" / "etdump"
        / "add-ethos-u55-128-partition0.tosa").read_bytes()


def _program(scratch_size: int) -> VelaProgram:
    return VelaProgram(cmd_data=b"", weight_data=b"", scratch_size=scratch_size, inputs=(),
                       outputs=())


def test_spans_hold_the_bytes_as_runs() -> None:
    mask = np.zeros(32, dtype=bool)
    mask[[1, 2, 3, 7, 30, 31]] = True
    spans = spans_of(np.flatnonzero(mask))
    assert spans.tolist() == [[1, 4], [7, 8], [30, 32]]
    assert span_bytes(spans).tolist() == [1, 2, 3, 7, 30, 31] and span_count(spans) == 6
    nhwc = np.arange(4 * 8 * 16).reshape(4, 8, 16, 1)   # a whole NHWC tensor: one span
    assert spans_of(nhwc).tolist() == [[0, 512]]


def test_a_check_that_cannot_fit_is_refused_in_one_line() -> None:
    available = available_bytes()
    assert available is not None and available > 0
    huge = _program(4 * available)
    with pytest.raises(OrchestratorError) as refused:
        ensure_fits(huge, TOSA, 3)
    message = str(refused.value)
    assert "checking NPU partition 3 with localisation needs about" in message
    assert "available" in message and "\n" not in message
    assert "--no-locate" in str(refused.value.next_step)
    assert needed_bytes(huge, TOSA, locate=False) < needed_bytes(huge, TOSA)


def test_a_small_program_fits() -> None:
    ensure_fits(_program(1 << 20), TOSA, 0)
