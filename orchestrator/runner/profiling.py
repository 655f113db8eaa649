"""`invoke run --profile`: the ETDump the runner sent back through the protocol, read into the
result's per-operator profile (or, when none arrived, the reason in the classification)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.profile.attach import attach_profile, save_blobs, vela_partitions
from orchestrator.protocol import ParsedStream
from orchestrator.results import RunResult

if TYPE_CHECKING:
    from orchestrator.aot.products import Product

NO_ETDUMP = ("the runner sent no ETDump (it stopped before reporting, or its ETDump buffer "
             "overflowed: see etdump_bytes / etdump_buffer_size in runner.toml [event_tracer])")


def profile_run(result: RunResult, stream: ParsedStream, product: Product,
                run_dir: Path) -> RunResult:
    """Save the blobs, then read the ETDump with the product's ETRecord into result.profile."""
    result.artifacts.update(save_blobs(stream.blobs, run_dir))
    etdump = stream.blobs.get("etdump")
    if etdump is None:
        result.classification.details["profile"] = NO_ETDUMP
        return result
    return attach_profile(result, etdump, run_dir, etrecord=product.etrecord,
                          vela=vela_partitions(product.vela_report))
