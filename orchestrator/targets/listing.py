"""The catalogue as plain data: one summary per target (what `invoke targets` shows)."""

from __future__ import annotations

from typing import Any

from orchestrator.targets.cortex_m import cortex_m_record, ran_on
from orchestrator.targets.model import Target


def target_summary(target: Target) -> dict[str, Any]:
    """One target as plain data (what `--json` prints)."""
    return {
        "name": target.name,
        "cpu": target.cpu,
        "npu": target.npu.name if target.npu else None,
        "macs": target.macs,
        "platform": target.platform.name,
        "simulators": [sim.name for sim in target.simulators],
        "npu_models": {model.name: {"simulators": list(model.simulators),
                                    "platform": model.platform,
                                    "refused": model.refusal(target.npu.name)}
                       for model in target.npu_models} if target.npu else {},
        "fvp_binary": next((s.binary for s in target.simulators if s.kind == "fvp"), None),
        "system_config": target.system_config,
        "memory_mode": target.memory_mode,
        "quantization": list(target.quantization),
        "pmu_events": list(target.pmu_events),
        # Cortex-M CPUs: GCC flags, CMSIS-NN backend (and the ones --isa may force), and the
        # core QEMU runs it on where the CPU has no board of its own
        "cortex_m": {**cortex_m_record(target, None),
                     "cmsis_nn_allowed": list(target.cpu_spec.cmsis_nn_allowed),
                     "runs_on": ran_on(target)} if target.cpu_spec else None,
        "memory_map": [
            {"name": r.name, "origin": f"0x{r.origin:08x}", "length": r.length}
            for r in target.platform.regions
        ],
    }


def cpu_label(summary: dict[str, Any]) -> str:
    """'cortex-m0 (SCALAR, runs on the Cortex-M3)' for the table's cpu column."""
    facts = summary.get("cortex_m")
    if not facts:
        return str(summary["cpu"])
    where = f", runs on the board's {facts['board_cpu']}" if facts["runs_on"] else ""
    built = f", built as {facts['gcc_cpu']}" if facts["gcc_cpu"] != summary["cpu"] else ""
    return f"{summary['cpu']} ({facts['cmsis_nn_backend']}{built}{where})"


def model_lanes(summary: dict[str, Any]) -> list[str]:
    """'qemu (NPU model)' for each simulator a model runs the target on."""
    return [f"{sim} (NPU model)" for model in summary["npu_models"].values()
            if not model["refused"] for sim in model["simulators"]]
