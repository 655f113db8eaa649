"""Each input set's host references (the exact program's outputs, the float model's), kept
by content: computed once per (product, input set bytes) and read back by any later
evaluation, so a data set evaluated again on a cached product loads neither torch, devtools
nor the float model. Entries are .npz files under <derived tables root>/host_references/
(orchestrator.foundation.derived_cache); one that is missing or unreadable is computed again."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.foundation.derived_cache import derived_root

if TYPE_CHECKING:
    from orchestrator.aot.key import CompileRequest
    from orchestrator.aot.products import Product

FORMAT = "host-references/1"
DIRECTORY = "host_references"
NO_EXACT = -1   # exact_count when the product has no exact program
Reference = tuple[list[Any] | None, list[Any]]   # (exact outputs or None, float outputs)


def input_digest(product: Product, arrays: Sequence[Any]) -> str:
    """The content key of one input set's references on `product` (with the installed
    versions of the packages that shape a product: the float model runs on this torch)."""
    from orchestrator.aot.key import tool_versions

    versions = json.dumps(tool_versions(), sort_keys=True)
    digest = hashlib.sha256(f"{FORMAT}\0{product.key}\0{versions}\n".encode())
    for array in arrays:
        digest.update(f"{array.dtype.str}{tuple(array.shape)}\n".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()[:32]


def _path(root: Path, digest: str) -> Path:
    return root / DIRECTORY / f"{digest}.npz"


def load_reference(path: Path) -> Reference | None:
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            exact_count, float_count = int(data["exact_count"]), int(data["float_count"])
            exact = (None if exact_count == NO_EXACT
                     else [data[f"exact_{i}"] for i in range(exact_count)])
            return exact, [data[f"float_{i}"] for i in range(float_count)]
    except (OSError, ValueError, KeyError, EOFError):
        return None


def store_reference(path: Path, reference: Reference) -> None:
    """Write atomically; a cache that cannot be written only costs the computation."""
    import numpy as np

    exact, floating = reference
    arrays = {f"float_{i}": array for i, array in enumerate(floating)}
    arrays.update({f"exact_{i}": array for i, array in enumerate(exact or [])})
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            np.savez(stream, exact_count=np.int64(NO_EXACT if exact is None else len(exact)),
                     float_count=np.int64(len(floating)), **arrays)
        os.replace(temporary, path)
    except OSError:
        return


def host_references(compile: CompileRequest, product: Product,
                    input_sets: Sequence[Sequence[Any]], root: Path | None = None
                    ) -> list[Reference]:
    """(exact, float) references of every input set: kept ones read back, the others
    computed by the product's host programs (loaded only then) and kept."""
    folder = root or derived_root()
    paths = [_path(folder, input_digest(product, arrays)) for arrays in input_sets]
    found = [load_reference(path) for path in paths]
    missing = [index for index, reference in enumerate(found) if reference is None]
    if missing:
        from orchestrator.aot.host_reference import HostPrograms

        host = HostPrograms(compile, product)
        for index in missing:
            arrays = input_sets[index]
            computed = (host.exact_outputs(arrays), host.float_outputs(arrays))
            store_reference(paths[index], computed)
            found[index] = computed
    return [reference for reference in found if reference is not None]
