"""The TOSA reference model's outputs, run once per (graph, inputs) (imports tosa-tools on a
miss). The configurations of one lowering share its TOSA graphs (orchestrator/aot/lower/store),
so verifying several configurations runs each graph on each input set once."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from orchestrator.tosa.reference_model import run_tosa_flatbuffer


def _digest(tosa: bytes, inputs: Sequence[np.ndarray[Any, Any]]) -> str:
    digest = hashlib.sha256(tosa)
    for array in inputs:
        digest.update(f"{array.dtype.str}{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


class TosaReferences:
    """Outputs of the TOSA reference model, kept per (graph, inputs); `runs` counts real runs."""

    def __init__(self) -> None:
        self._outputs: dict[str, list[np.ndarray[Any, Any]]] = {}
        self.runs = 0

    def outputs(self, tosa: bytes, inputs: Sequence[np.ndarray[Any, Any]]
                ) -> list[np.ndarray[Any, Any]]:
        key = _digest(tosa, inputs)
        if key not in self._outputs:
            self._outputs[key] = list(run_tosa_flatbuffer(tosa, inputs))
            self.runs += 1
        return self._outputs[key]
