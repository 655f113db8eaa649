"""Human output for a RunResult: a compact table and a one-line verdict."""

from __future__ import annotations

from typing import Any

from orchestrator.results.model import FVP_CPU_CYCLES_NOTE, RunResult, Status

MAX_TENSORS_SHOWN = 3
STATUS_STYLE = {
    Status.PASS: "bold green",
    Status.FAIL: "bold red",
    Status.ERROR: "bold red",
    Status.TIMEOUT: "bold yellow",
    Status.SKIPPED: "bold blue",
}


def verdict(result: RunResult) -> str:
    """One line: STATUS (kind): summary; next: step."""
    head = f"{result.status.value.upper()} ({result.classification.kind.value}): {result.reason}"
    if result.status is Status.PASS:
        return head
    return f"{head}; next: {result.classification.next_step}"


def _count(value: int | None, unit: str = "") -> str:
    """Thousands-separated number, or a dash when unknown."""
    return "-" if value is None else f"{value:,}{unit}"


def _cycles(result: RunResult) -> str | None:
    """NPU cycles (with Vela's estimate beside them) and CPU cycles (flagged as not timing)."""
    parts = []
    if result.npu and result.npu.cycles is not None:
        parts.append(f"NPU {_count(result.npu.cycles)}")
    if result.vela and result.vela.npu_cycles is not None:
        parts.append(f"Vela estimate {_count(result.vela.npu_cycles)}")
    if result.cpu and result.cpu.total is not None:
        fvp = result.cpu.note == FVP_CPU_CYCLES_NOTE
        parts.append(
            f"CPU {_count(result.cpu.total)} ({'not timing on FVP' if fvp else result.cpu.source})"
        )
    return ", ".join(parts) or None


def _npu_share(result: RunResult) -> str | None:
    """NPU ratio as the runner printed it, and the PMU counters by event name."""
    parts = []
    if result.cpu and result.cpu.npu_ratio_percent is not None:
        parts.append(f"{result.cpu.npu_ratio_percent:.2f} % of inference on NPU")
    if result.npu:
        parts += [f"{c.event or f'cntr{c.index}'}={c.value:,}" for c in result.npu.counters]
    return ", ".join(parts) or None


def _memory(result: RunResult) -> str | None:
    """Pools as used / size, the .pte size and the image's sections."""
    memory = result.memory
    if memory is None:
        return None
    parts = [
        f"{name} {_count(pool.used)} / {_count(pool.size)} B" for name, pool in memory.pools.items()
    ]
    if memory.pte_size is not None:
        parts.append(f"pte {_count(memory.pte_size)} B")
    parts += [f"{name} {_count(size)} B" for name, size in memory.image_sections.items()]
    return ", ".join(parts) or None


def _vela(result: RunResult) -> str | None:
    """Vela's memory and throughput estimates (compile time, not measured)."""
    vela = result.vela
    if vela is None:
        return None
    used = [
        f"{name} {value:g} KiB"
        for name, value in (("SRAM", vela.sram_used_kib), ("DRAM", vela.dram_used_kib),
                            ("off-chip flash", vela.offchip_flash_used_kib))
        if value is not None
    ]
    if vela.network_tops_per_s is not None:
        used.append(f"{vela.network_tops_per_s:g} Tops/s")
    if vela.npu_operators is not None:
        used.append(f"{vela.npu_operators} NPU / {vela.cpu_operators or 0} CPU operators")
    return ", ".join(used) or None


def _delegation(result: RunResult) -> str | None:
    """How much of the graph went to a backend."""
    delegation = result.delegation
    if delegation is None:
        return None
    return (
        f"{_count(delegation.delegated_nodes)} nodes delegated in "
        f"{_count(delegation.subgraphs)} subgraphs, {_count(delegation.non_delegated_nodes)} not"
    )


def _exit_code(result: RunResult) -> str | None:
    """The firmware's own exit code, when it printed one (0 shown too)."""
    code = result.simulation.application_exit_code
    return None if code is None else f"{code} (printed by the application)"


def _errors(result: RunResult) -> str | None:
    """BundleIO or host comparison statistics."""
    comparison = result.comparison
    if comparison is None:
        return None
    stats = [
        f"{name}={getattr(comparison, name):g}"
        for name in ("max_absolute_error", "max_relative_error", "mean_absolute_error")
        if getattr(comparison, name) is not None
    ]
    outcome = {True: "match", False: "MISMATCH", None: "not judged"}[comparison.passed]
    return ", ".join([outcome, *stats])


def _outputs(result: RunResult) -> str | None:
    """Output count, dtypes and how exact the values are (the first few tensors in detail)."""
    if not result.outputs:
        return None
    described = []
    for tensor in result.outputs[:MAX_TENSORS_SHOWN]:
        shown = f"{len(tensor.values)} values" + (" (elided)" if tensor.elided else "")
        exactness = "exact" if tensor.exact else (tensor.precision or "as printed")
        described.append(f"#{tensor.index} {tensor.dtype or '?'} {shown}, {exactness}")
    hidden = len(result.outputs) - MAX_TENSORS_SHOWN
    if hidden > 0:
        described.append(f"+{hidden} more")
    return "; ".join(described)


def _files(result: RunResult) -> str | None:
    """Products worth opening (decoded ETDump, ELF, output files); the transcript is implied."""
    shown = [f"{name} {path}" for name, path in result.artifacts.items() if name != "transcript"]
    return ", ".join(shown) or None


def summary_rows(result: RunResult) -> list[tuple[str, str]]:
    """The rows of the compact table (only those with something to say)."""
    rows: list[tuple[str, Any]] = [
        ("status", f"{result.status.value} ({result.classification.kind.value})"),
        ("target", result.target.name),
        ("simulator", result.versions.simulator or result.target.simulator),
        ("cycles", _cycles(result)),
        ("NPU", _npu_share(result)),
        ("memory", _memory(result)),
        ("vela", _vela(result)),
        ("delegation", _delegation(result)),
        ("exit code", _exit_code(result)),
        ("error stats", _errors(result)),
        ("outputs", _outputs(result)),
        ("stop", result.simulation.stop_reason),
        ("files", _files(result)),
    ]
    return [(name, str(value)) for name, value in rows if value]


def print_result(result: RunResult) -> None:
    """Print the compact table then the verdict line."""
    from rich.console import Console
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for name, value in summary_rows(result):
        table.add_row(name, value)
    console = Console()
    console.print(table)
    console.print(verdict(result), style=STATUS_STYLE[result.status], markup=False)
