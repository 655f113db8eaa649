"""The numbers a regression tracks, flattened from a RunResult into {metric name: value}."""

from __future__ import annotations

import math
from typing import Any

from orchestrator.results import RunResult

VELA_FIELDS = ("npu_cycles", "total_cycles", "sram_used_kib", "offchip_flash_used_kib",
               "npu_operators", "cpu_operators", "inference_time_ms", "macs")
ERROR_FIELDS = {"max_abs": "max_absolute_error", "mean_abs": "mean_absolute_error",
                "max_rel": "max_relative_error", "mean_rel": "mean_relative_error"}
VERSION_FIELDS = ("tool", "executorch", "vela", "toolchain", "simulator", "simulator_version",
                  "runtime_commit")


def extract_metrics(result: RunResult) -> dict[str, float]:
    """Every tracked number in `result` (NPU/CPU cycles, PMU, memory, Vela, output error,
    accuracy vs the float model). Exactness is not a metric: a run that is not bit-exact
    fails."""
    metrics: dict[str, float] = {}
    _npu(result, metrics)
    _cpu(result, metrics)
    _memory(result, metrics)
    _vela(result, metrics)
    _error(result, metrics)
    _accuracy(result, metrics)
    return dict(sorted(metrics.items()))


def extract_versions(result: RunResult) -> dict[str, str]:
    """The component versions that produced `result` (unknown ones left out)."""
    versions = result.versions
    found = {name: getattr(versions, name) for name in VERSION_FIELDS}
    found.update({f"extra.{key}": value for key, value in versions.extra.items()})
    return {name: str(value) for name, value in sorted(found.items()) if value is not None}


def _put(metrics: dict[str, float], name: str, value: Any) -> None:
    """Record a finite number (None, NaN, infinities and non-numbers are left out)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        metrics[name] = value


def _npu_emulated(result: RunResult) -> bool:
    """The NPU's work was not measured: something other than an FVP's Ethos-U executed it
    (executor None is a result from before the executor was recorded: an FVP)."""
    return result.npu is not None and result.npu.executor not in (None, "fvp")


def _npu(result: RunResult, metrics: dict[str, float]) -> None:
    """NPU cycles and PMU counters: measured by an FVP's NPU only (a npu-model run has
    no NPU timing, so it never enters a baseline's NPU metrics)."""
    if result.npu is None or _npu_emulated(result):
        return
    _put(metrics, "npu.cycles", result.npu.cycles)
    for counter in result.npu.counters:
        _put(metrics, f"pmu.{counter.event or f'counter{counter.index}'}", counter.value)


def _cpu(result: RunResult, metrics: dict[str, float]) -> None:
    """CPU cycles, unless they include the NPU model's emulation of the NPU (a
    npu-model run, which labels them cpu.includes_npu_model: neither CPU nor NPU
    performance, so never a baseline)."""
    if result.cpu is None or _npu_emulated(result):
        return
    _put(metrics, "cpu.cycles", result.cpu.total)
    _put(metrics, "cpu.operators_cycles", result.cpu.operators_total)
    _put(metrics, "cpu.npu_wait_cycles", result.cpu.npu_wait)


def _memory(result: RunResult, metrics: dict[str, float]) -> None:
    memory = result.memory
    if memory is None:
        return
    _put(metrics, "memory.pte_size", memory.pte_size)
    for name, pool in memory.pools.items():
        _put(metrics, f"memory.pool.{name}.used", pool.used)
    for name, size in memory.allocations.items():
        _put(metrics, f"memory.alloc.{name}", size)
    for name, size in memory.image_sections.items():
        _put(metrics, f"memory.section.{name.lstrip('.')}", size)


def _vela(result: RunResult, metrics: dict[str, float]) -> None:
    if result.vela is None:
        return
    for name in VELA_FIELDS:
        _put(metrics, f"vela.{name}", getattr(result.vela, name))


def _error(result: RunResult, metrics: dict[str, float]) -> None:
    if result.comparison is None:
        return
    for short, name in ERROR_FIELDS.items():
        _put(metrics, f"error.{short}", getattr(result.comparison, name))


ACCURACY_FIELDS = {"snr_db": "snr_db", "max_steps": "max_abs_steps",
                   "mean_steps": "mean_abs_steps", "max_abs": "max_abs_error",
                   "mean_abs": "mean_abs_error"}


def _accuracy(result: RunResult, metrics: dict[str, float]) -> None:
    """accuracy.<name> for output 0, accuracy.output<i>.<name> for the others; top-1/top-5
    agreement as 1.0 / 0.0."""
    if result.accuracy is None:
        return
    for output in result.accuracy.outputs:
        prefix = "accuracy." if output.index == 0 else f"accuracy.output{output.index}."
        for short, name in ACCURACY_FIELDS.items():
            _put(metrics, f"{prefix}{short}", getattr(output, name))
        for name in ("top1", "top5"):
            agrees = getattr(output, name)
            if agrees is not None:
                metrics[f"{prefix}{name}"] = 1.0 if agrees else 0.0
    _dataset_accuracy(result.accuracy.dataset or {}, metrics)


DATASET_METRICS = ("completed", "top1_agreement", "top5_agreement", "snr_db_mean", "snr_db_min")


def _dataset_accuracy(dataset: dict[str, Any], metrics: dict[str, float]) -> None:
    """A cell over a data set (`inputs`): accuracy.dataset.<name>, task accuracy of the
    float model, the host integer program and the device included."""
    for name in DATASET_METRICS:
        _put(metrics, f"accuracy.dataset.{name}", dataset.get(name))
    for program, value in (dataset.get("accuracy") or {}).items():
        _put(metrics, f"accuracy.dataset.{program}", value)
