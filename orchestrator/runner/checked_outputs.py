"""A passing exact output check kept by content (orchestrator.foundation.derived_cache): the
same output bytes checked against the same product's references with the same limits give
the same comparison and accuracy, so a warm run that repeats them reads the check back and
imports no numpy.

The key digests every reported tensor (index, dtype, shape, bytes), the references' files
(stat), the product's exactness record and the limits, and the checking code's own files, so
an edited comparison is computed again. Only bit-exact passes are kept: a mismatch is always
computed, with its locating detail."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.comparison.thresholds import Thresholds
from orchestrator.foundation.derived_cache import keep_table, read_table, stat_digest
from orchestrator.protocol import ParsedStream
from orchestrator.results import Accuracy, Comparison
from orchestrator.results.codec import from_plain, to_plain

if TYPE_CHECKING:
    from orchestrator.aot.products import Product

TABLE = "output-check"
FORMAT = "1"
PACKAGE = Path(__file__).resolve().parent.parent
CHECKING_CODE = (PACKAGE / "runner" / "output_check.py", PACKAGE / "runner" / "checked_outputs.py",
                 PACKAGE / "comparison" / "departure.py", PACKAGE / "comparison" / "accuracy.py",
                 PACKAGE / "results" / "model.py")


@dataclass(frozen=True)
class CheckedOutputs:
    """A kept passing check: the comparison, exact.json's document and the accuracy."""

    comparison: Comparison
    exact: dict[str, Any]
    accuracy: Accuracy


def check_key(stream: ParsedStream, product: Product, limits: Thresholds) -> str:
    """The content key of checking `stream`'s outputs against `product` with `limits`."""
    digest = hashlib.sha256(FORMAT.encode())
    for index in sorted(stream.tensors):
        tensor = stream.tensors[index]
        digest.update(f"{index}\0{tensor.dtype}\0{list(tensor.shape)}\0".encode())
        digest.update(hashlib.sha256(tensor.data).digest())
    files = [tensor.path for tensor in (*product.reference, *product.reference_float)]
    layout = [[tensor.to_json() for tensor in product.reference],
              [tensor.to_json() for tensor in product.reference_float],
              product.reference_kind, product.exact_record.to_json(), to_plain(limits)]
    digest.update(json.dumps(layout, sort_keys=True, default=str).encode())
    digest.update(stat_digest([*files, *CHECKING_CODE]).encode())
    return digest.hexdigest()[:24]


def read_check(key: str) -> CheckedOutputs | None:
    """The passing check kept for `key`, or None."""
    table = read_table(TABLE, key)
    try:
        return CheckedOutputs(from_plain(Comparison, table["comparison"]), dict(table["exact"]),
                              from_plain(Accuracy, table["accuracy"]))
    except (KeyError, TypeError, ValueError):
        return None


def keep_check(key: str, checked: CheckedOutputs) -> None:
    """Keep a passing check for `key`."""
    keep_table(TABLE, key, {"comparison": to_plain(checked.comparison),
                            "exact": checked.exact, "accuracy": to_plain(checked.accuracy)})
