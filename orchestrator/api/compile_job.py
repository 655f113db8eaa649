"""`compile`: one model for every target a task names (cached products, a configuration of a
cached lowering, or a compile in full; or under a toolset), summarised."""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from orchestrator.aot.api import cached_lowering, cached_product, compile_request, request_for
from orchestrator.aot.key import CompileRequest
from orchestrator.aot.products import Product
from orchestrator.api.reports import CompileReport
from orchestrator.foundation.paths import scratch
from orchestrator.options.compile import CompileChoices, CompileTask
from orchestrator.targets.selection import expand_targets


def summary(product: Product, seconds: float | None = None) -> dict[str, Any]:
    """The short, machine-readable summary of a product."""
    manifest = product.manifest
    method = manifest["program"]["methods"].get("forward", {})
    vela = manifest.get("vela") or {}
    result = {
        "model": manifest["model"]["name"],
        "target": manifest["target"],
        "quantize": manifest["options"]["quantize"],
        "delegate": manifest["options"]["delegate"],
        "cached": product.cached,
        "delegation": manifest["delegation"],
        "float_ops_after_quantization": manifest["float_ops_after_quantization"],
        "npu_cycles_estimate": vela.get("npu_cycles"),
        "total_cycles_estimate": vela.get("total_cycles"),
        "memory": {
            "pte_bytes": manifest["pte_bytes"],
            "planned_bytes": method.get("planned_bytes", 0),
            "vela_scratch_bytes": manifest["program"]["max_vela_scratch_bytes"],
            "vela_sram_used_kib": vela.get("sram_used_kib"),
            "vela_dram_used_kib": vela.get("dram_used_kib"),
        },
        "notes": manifest["notes"] + manifest["known_issues"],
        "exact_reference": {"status": product.exact_record.status,
                            "reason": product.exact_record.reason,
                            "unsupported_ops": list(product.exact_record.unsupported_ops)},
        "paths": product.paths(),
        "lowering": _lowering(manifest),
    }
    if seconds is not None:
        result["seconds"] = round(seconds, 3)
    return result


def _lowering(manifest: dict[str, Any]) -> dict[str, Any] | None:
    """Which lowering the product is a configuration of, and whether it was lowered for it
    (None: a product from before compiles were split)."""
    lowering = manifest.get("lowering")
    if not lowering:
        return None
    return {"key": lowering["key"], "lowered_for": lowering["lowered_for"],
            "lowering_seconds": lowering["seconds"],
            "configuration_seconds": lowering.get("configured_seconds")}


def example_choices(task: CompileTask) -> CompileChoices:
    """The compile's choices: with --bundle --inputs DIR, the directory's input sets become
    the bundle's test cases and its first file the compile's example inputs."""
    inputs = task.choices.inputs
    if not (task.bundle and inputs and Path(inputs).expanduser().is_dir()):
        return task.choices
    from orchestrator.evaluate.dataset import data_files

    return replace(task.choices, inputs=str(data_files(inputs)[0]))


def compile_one(model: str, target: str, task: CompileTask) -> dict[str, Any]:
    """One target's product (cached, a configuration of a cached lowering, or compiled in
    full) and its summary."""
    started = time.perf_counter()
    request = request_for(model, target, example_choices(task))
    where = scratch()
    if cached_product(request, where) is None:
        how = ("Vela on its cached lowering" if cached_lowering(request, where) is not None
               else "seconds for small models, minutes for mv2")
        print(f"compiling {request.model.name} for {request.options.target} ({how})",
              file=sys.stderr, flush=True)
    product = compile_request(request, where)
    return bundled(summary(product, time.perf_counter() - started), product, task, request)


def bundled(result: dict[str, Any], product: Product, task: CompileTask,
            request: CompileRequest | None = None) -> dict[str, Any]:
    """The summary, with the product's .bpte written and named when --bundle asked (one test
    case per input set of --inputs when it names several and the compile request is known)."""
    if task.bundle:
        from orchestrator.artifacts.bundle_product import bundle_input_sets, bundle_product

        path = (bundle_input_sets(product, request, task.choices.inputs)
                if request is not None and task.choices.inputs else bundle_product(product))
        result["paths"]["bundle"] = str(path)
    return result


def compile_in_toolset(task: CompileTask, targets: list[str]) -> list[dict[str, Any]]:
    """Every target compiled under the task's toolset (its environment's worker unless it
    is this one); the summaries name the toolset."""
    from orchestrator.toolsets.catalogue import find_toolset
    from orchestrator.toolsets.compile import products_under

    toolset = find_toolset(task.toolset)
    products = products_under(toolset, task.model, tuple(targets), task.choices, scratch())
    return [bundled({**summary(product), "toolset": toolset.to_json()}, product, task)
            for product in products.values()]


def compile_with(task: CompileTask) -> CompileReport:
    """Compile (or fetch from cache) for every target the task names: the first
    configuration of a family lowers the model, the others run Vela."""
    targets = expand_targets(task.target)
    summaries = (compile_in_toolset(task, targets) if task.toolset else
                 [compile_one(task.model, target, task) for target in targets])
    return CompileReport(summaries)
