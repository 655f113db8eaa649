"""`invoke compile`: compile one model and print a short summary (or JSON)."""

from __future__ import annotations

import sys
import time
from typing import Any

from orchestrator.aot.api import cached_product, compile_request, request_for
from orchestrator.aot.products import Product
from orchestrator.cli import print_json
from orchestrator.options.compile import CompileTask
from orchestrator.paths import scratch


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
    }
    if seconds is not None:
        result["seconds"] = round(seconds, 3)
    return result


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
    lines.append(f"  product: {paths['directory']}")
    lines.append(f"  pte: {paths['pte']}")
    for name in ("delegation_report", "vela_report"):
        if name in paths:
            lines.append(f"  {name.replace('_', ' ')}: {paths[name]}")
    return "\n".join(lines)


def compile_command(task: CompileTask, json: bool = False) -> int:
    """Compile (or fetch from cache) and print the summary."""
    started = time.perf_counter()
    request = request_for(task.model, task.target, task.choices)
    where = scratch()
    if cached_product(request, where) is None:
        print(f"compiling {request.model.name} for {request.options.target} "
              "(seconds for small models, minutes for mv2)", file=sys.stderr, flush=True)
    product = compile_request(request, where)
    result = summary(product, time.perf_counter() - started)
    if json:
        print_json(result)
    else:
        print(render(result))
    return 0
