"""`invoke compile`: compile one model and print a short summary (or JSON)."""

from __future__ import annotations

from typing import Any

from orchestrator.api.compile_job import compile_with, summary
from orchestrator.foundation.cli import print_json
from orchestrator.options.compile import CompileTask

__all__ = ["compile_command", "render", "summary"]


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


def compile_command(task: CompileTask, json: bool = False) -> int:
    """Compile (or fetch from cache) for every target the task names and print the
    summaries (orchestrator.api.compile_job does the work)."""
    report = compile_with(task)
    if json:
        print_json(report.to_dict())
    else:
        print("\n".join(render(result) for result in report.summaries))
    return 0
