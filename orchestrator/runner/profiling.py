"""`invoke run --profile`: the ETDump the runner sent back through the protocol, read into the
result's per-operator profile (or, when none arrived, the reason in the classification)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.exact.intermediates import load_intermediates
from orchestrator.profile.attach import (
    DEBUG_BUFFER_FILE,
    ETDUMP_FILE,
    attach_profile,
    save_blobs,
    vela_partitions,
)
from orchestrator.profile.intermediates import describe, device_intermediates, first_departure
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
    result = attach_profile(result, etdump, run_dir, etrecord=product.etrecord,
                            vela=vela_partitions(product.vela_report),
                            tosa=[partition.tosa for partition in product.partitions])
    if "debug_buffer" in stream.blobs and result.profile is not None:
        compare_intermediates(result, run_dir, product)
    return result


def compare_intermediates(result: RunResult, run_dir: Path, product: Product) -> None:
    """--intermediates: the device's operator outputs against the exact reference's, op by
    op; the first departure goes into the profile and, in one sentence, the classification."""
    reference = product.exact_intermediates
    assert result.profile is not None
    if reference is None:
        result.classification.details["intermediates"] = (
            "the product has no exact reference intermediates (float program, an op without "
            "an exact host model, or compiled before they were kept): nothing to compare")
        return
    device = device_intermediates(run_dir / ETDUMP_FILE, run_dir / DEBUG_BUFFER_FILE)
    comparison = first_departure(device, load_intermediates(reference))
    result.profile.intermediates = comparison
    result.classification.details["intermediates"] = describe(comparison)
