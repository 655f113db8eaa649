"""The library entry points: compile one model, or many in one process (cache first)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.aot import products as layout
from orchestrator.aot.key import CompileRequest
from orchestrator.aot.lower.store import (
    Lowering,
    load_lowering,
    lowered_root,
    lowering_manifest,
    publish_lowering,
)
from orchestrator.aot.models.sources import resolve_model, tensor_files
from orchestrator.aot.options import resolve_options
from orchestrator.aot.product_cache import hold
from orchestrator.aot.products import Product, load_product
from orchestrator.foundation.cache_check import checked
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import filling, writing
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.foundation.progress import step
from orchestrator.options.compile import CompileChoices

FAILED_LOG_SUFFIX = ".failed.log"


def cached_product(request: CompileRequest, where: Scratch) -> Product | None:
    """The finished product for `request`, if it is already in scratch/models/ and its files
    are as recorded (orchestrator/foundation/cache_check.py: a damaged one is named and set aside),
    leased to this process (orchestrator/aot/product_cache.py: a clean-up never removes it
    while we run)."""
    product = load_product(where.models / request.key())
    return product if (product is not None and checked(product.directory)
                       and hold(product.directory)) else None


def cached_lowering(request: CompileRequest, where: Scratch) -> Lowering | None:
    """The finished lowering `request` is a configuration of, if it is in scratch and sound
    (leased to this process, as products are)."""
    lowering = load_lowering(lowered_root(where.models) / request.lowering_key())
    return lowering if (lowering is not None and checked(lowering.directory)
                        and hold(lowering.directory)) else None


def compile_request(request: CompileRequest, where: Scratch | None = None) -> Product:
    """Return the cached product; else configure the cached lowering (Vela on its partitions,
    the .pte assembled), else compile it in full and keep its lowering. Staged, then
    published atomically."""
    where = where or scratch()
    found = cached_product(request, where)
    if found is not None:
        return found
    lowering = cached_lowering(request, where)
    final = where.models / request.key()
    with writing(where.models):
        staging = layout.staging_directory(where.models, request.key())
    with filling(final):
        try:
            manifest = _build(request, lowering, staging)
            layout.write_json(staging / layout.MANIFEST, manifest)
            layout.publish(staging, final)
        except OrchestratorError as error:
            log = _keep_failure_log(staging, final)
            layout.discard(staging)
            raise OrchestratorError(error.cause, f"{error.next_step}; full log: {log}"
                                    if log else error.next_step) from None
        except BaseException:
            layout.discard(staging)
            raise
        if lowering is None:
            _keep_lowering(request, manifest, final, where)
    final.with_name(f"{final.name}{FAILED_LOG_SUFFIX}").unlink(missing_ok=True)
    if not hold(final):   # a clean-up removed it the moment it was published: once more
        return compile_request(request, where)
    product = load_product(final)
    assert product is not None, f"published product {final} has no manifest"
    return Product(directory=product.directory, manifest=product.manifest, cached=False)


def _build(request: CompileRequest, lowering: Lowering | None, staging: Path
           ) -> dict[str, Any]:
    if lowering is not None:
        from orchestrator.aot.assembly.configure import configure_product

        return configure_product(request, lowering, staging)
    from orchestrator.aot.compiler import build_product

    return build_product(request, staging)


def _keep_lowering(request: CompileRequest, manifest: dict[str, Any], product: Path,
                   where: Scratch) -> None:
    """Keep a full compile's lowering for the other configurations of its family."""
    root = lowered_root(where.models)
    with writing(root.parent):
        publish_lowering(product, manifest, lowering_manifest(
            request.lowering_key(), manifest,
            [(a, b, c) for a, b, c in manifest["lowering"]["delegate_partitions"]],
            request.lowering_identity()), root / request.lowering_key())


def _keep_failure_log(staging: Path, final: Path) -> Path | None:
    """Keep a failed compile's log next to where its product would have been."""
    from orchestrator.aot.compiler import COMPILE_LOG

    log = staging / COMPILE_LOG
    if not log.is_file():
        return None
    kept = final.with_name(f"{final.name}{FAILED_LOG_SUFFIX}")
    log.replace(kept)
    return kept


def request_for(model: str, target: str, choices: CompileChoices | None = None
                ) -> CompileRequest:
    """Resolve names, files and the compile choices (None: the defaults) into a request
    (cheap: never imports torch)."""
    choices = choices or CompileChoices()
    resolved = resolve_options(target, choices)
    if choices.calibration and not resolved.quantize:
        raise OrchestratorError("calibration data only applies to a quantized compile",
                                "add --quantize int8 or drop --calibration")
    return CompileRequest(model=resolve_model(model, choices.random_weights), options=resolved,
                          inputs=tensor_files(choices.inputs, "input"),
                          calibration=tensor_files(choices.calibration, "calibration"))


def compile_model(model: str, target: str, choices: CompileChoices | None = None, *,
                  scratch_root: str | Path | None = None) -> Product:
    """Compile `model` for `target` with `choices` (checked by resolve_options)."""
    request = request_for(model, target, choices)
    with step(f"compile {model} for {target}"):
        return compile_request(request, scratch(scratch_root))


@dataclass(frozen=True)
class BatchItem:
    """One result of a batch compile: a product, or the one-line error."""

    request: CompileRequest
    product: Product | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.product is not None


def compile_many(requests: Iterable[CompileRequest], where: Scratch | None = None,
                 keep_going: bool = True,
                 progress: Callable[[BatchItem], None] | None = None) -> list[BatchItem]:
    """Compile many requests in this one process (torch is imported once, on first miss).

    With keep_going, a request that fails becomes a BatchItem with its one-line error and
    the batch goes on; `progress` is called with each item as it finishes.
    """
    where = where or scratch()
    results = []
    for request in requests:
        try:
            item = BatchItem(request, product=compile_request(request, where))
        except OrchestratorError as error:
            if not keep_going:
                raise
            item = BatchItem(request, error=error.message)
        results.append(item)
        if progress is not None:
            progress(item)
    return results
