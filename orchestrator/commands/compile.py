"""`invoke compile`: compile one model and print a short summary (or JSON)."""

from __future__ import annotations

import sys
import time
from typing import Any

from orchestrator.aot.api import cached_lowering, cached_product, compile_request, request_for
from orchestrator.aot.products import Product
from orchestrator.cli import print_json
from orchestrator.options.compile import CompileTask
from orchestrator.paths import scratch
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


EXACT_WORDS = {"exact": "exact (the lowered program run on the host; the device must match "
                        "bit for bit)",
               "fallback": "quantized model's reference, with tolerance",
               "float": "float model's, with tolerance"}


def _ops(counts: dict[str, int]) -> str:
    return ", ".join(f"{op} x{count}" for op, count in counts.items()) or "none"


def _memory_line(memory: dict[str, Any]) -> str:
    parts = [f".pte {memory['pte_bytes']} B", f"planned {memory['planned_bytes']} B"]
    if memory["vela_scratch_bytes"]:
        parts.append(f"NPU scratch {memory['vela_scratch_bytes']} B")
    for name in ("sram", "dram"):
        used = memory[f"vela_{name}_used_kib"]
        if used is not None:
            parts.append(f"Vela {name.upper()} {used} KiB")
    return ", ".join(parts)


def render(result: dict[str, Any]) -> str:
    """The summary as a few human-readable lines."""
    delegation = result["delegation"]
    cached = " (cached)" if result["cached"] else ""
    lines = [
        f"{result['model']} -> {result['target']}, {result['quantize'] or 'float'}, "
        f"{'delegated' if result['delegate'] else 'CPU only'}{cached}",
        f"  delegation: {delegation['status']}: {delegation['npu_op_count']} ops on NPU in "
        f"{delegation['delegated_partitions']} partition(s), {delegation['cpu_op_count']} on CPU",
    ]
    if result["float_ops_after_quantization"]:
        lines.append("  left in float after quantization: "
                     + _ops(result["float_ops_after_quantization"]))
    if result["npu_cycles_estimate"] is not None:
        lines.append(f"  Vela estimate: {result['npu_cycles_estimate']} NPU cycles, "
                     f"{result['total_cycles_estimate']} total cycles")
    lines.append(f"  memory: {_memory_line(result['memory'])}")
    exact = result["exact_reference"]
    lines.append(f"  expected outputs: {EXACT_WORDS.get(exact['status'], exact['status'])}"
                 + (f" ({exact['reason']})" if exact["reason"] else ""))
    lines += [f"  note: {note}" for note in result["notes"]]
    paths = result["paths"]
    lowering = result.get("lowering")
    if lowering and lowering["configuration_seconds"] is not None:
        lines.append(f"  lowering: {lowering['key']} (lowered for {lowering['lowered_for']} in "
                     f"{lowering['lowering_seconds']} s; this configuration: Vela and the .pte "
                     f"in {lowering['configuration_seconds']} s)")
    if "toolset" in result:
        toolset = result["toolset"]
        lines.append(f"  toolset: {toolset['name']} (executorch "
                     f"{toolset['packages']['executorch']}, Vela "
                     f"{toolset['packages']['ethos-u-vela']})")
    lines.append(f"  product: {paths['directory']}")
    lines.append(f"  pte: {paths['pte']}")
    for name in ("delegation_report", "vela_report", "bundle"):
        if name in paths:
            lines.append(f"  {name.replace('_', ' ')}: {paths[name]}")
    return "\n".join(lines)


def compile_one(model: str, target: str, task: CompileTask) -> dict[str, Any]:
    """One target's product (cached, a configuration of a cached lowering, or compiled in
    full) and its summary."""
    started = time.perf_counter()
    request = request_for(model, target, task.choices)
    where = scratch()
    if cached_product(request, where) is None:
        how = ("Vela on its cached lowering" if cached_lowering(request, where) is not None
               else "seconds for small models, minutes for mv2")
        print(f"compiling {request.model.name} for {request.options.target} ({how})",
              file=sys.stderr, flush=True)
    product = compile_request(request, where)
    return bundled(summary(product, time.perf_counter() - started), product, task)


def bundled(result: dict[str, Any], product: Product, task: CompileTask) -> dict[str, Any]:
    """The summary, with the product's .bpte written and named when --bundle asked."""
    if task.bundle:
        from orchestrator.artifacts.bundle_product import bundle_product

        result["paths"]["bundle"] = str(bundle_product(product))
    return result


def compile_in_toolset(task: CompileTask, targets: list[str]) -> list[dict[str, Any]]:
    """Every target compiled under the task's toolset (its environment's worker unless it
    is this one); the summaries name the toolset."""
    from orchestrator.toolsets.catalogue import find_toolset
    from orchestrator.toolsets.compile import compile_under

    toolset = find_toolset(task.toolset)
    results = []
    for compiled in compile_under(toolset, task.model, tuple(targets), task.choices, scratch()):
        if compiled.error is not None:
            raise compiled.error
        assert compiled.product is not None
        results.append(bundled({**summary(compiled.product), "toolset": toolset.to_json()},
                               compiled.product, task))
    return results


def compile_command(task: CompileTask, json: bool = False) -> int:
    """Compile (or fetch from cache) for every target the task names and print the
    summaries: the first configuration of a family lowers the model, the others run Vela."""
    targets = expand_targets(task.target)
    results = (compile_in_toolset(task, targets) if task.toolset else
               [compile_one(task.model, target, task) for target in targets])
    if json:
        print_json(results[0] if len(results) == 1 else results)
    else:
        print("\n".join(render(result) for result in results))
    return 0
