"""The exact reference's intermediates: every op's output of the host's exact run of the
program, in execution order, kept with the product (reference_exact_intermediates.npz) so a
device's intermediate outputs (ETDump debug buffer) can be compared op by op."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

INTERMEDIATES = "reference_exact_intermediates.npz"   # products.EXACT_INTERMEDIATES
OPS_KEY = "ops"


def save_intermediates(path: Path, items: Sequence[tuple[str, Any]]) -> None:
    """Write (op, torch tensor) pairs: logical (contiguous) values, op names alongside."""
    arrays = {f"t{index:05d}": tensor.detach().contiguous().numpy()
              for index, (_, tensor) in enumerate(items)}
    with path.open("wb") as handle:
        np.savez_compressed(handle, **arrays, **{OPS_KEY: np.array([op for op, _ in items])})


def load_intermediates(path: Path) -> list[tuple[str, np.ndarray[Any, Any]]]:
    """The (op, values) pairs in execution order."""
    with np.load(path) as data:
        ops = [str(op) for op in data[OPS_KEY]]
        return [(op, data[f"t{index:05d}"]) for index, op in enumerate(ops)]
