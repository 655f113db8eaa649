"""Human output for a RunResult: a compact table, the run task's short table (format_result)
and a one-line verdict."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.results.model import (
    FVP_CPU_CYCLES_NOTE,
    Accuracy,
    Comparison,
    OutputTensor,
    RunResult,
    Status,
)

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
        parts.append(f"CPU {_count(result.cpu.total)} ({_cpu_meaning(result)})")
    return ", ".join(parts) or None


def _cpu_meaning(result: RunResult) -> str:
    """What the CPU count is: its source, unless it is not timing (FVP) or includes the
    NPU model's emulation of the NPU."""
    assert result.cpu is not None
    if result.cpu.includes_npu_model:
        return f"{result.cpu.source}, CPU + NPU model emulating the NPU: not timing"
    return "not timing on FVP" if result.cpu.note == FVP_CPU_CYCLES_NOTE else result.cpu.source


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
    described = [_tensor(tensor) for tensor in result.outputs[:MAX_TENSORS_SHOWN]]
    hidden = len(result.outputs) - MAX_TENSORS_SHOWN
    if hidden > 0:
        described.append(f"+{hidden} more")
    return "; ".join(described)


def _tensor(tensor: OutputTensor) -> str:
    """'#0 float32 [1,000 elements, 4,000 B] 3 values (elided), exact': what the log stated."""
    if tensor.not_tensor:
        return f"#{tensor.index} not a tensor"
    size = [f"{_count(tensor.numel)} elements" if tensor.numel is not None else "",
            f"{_count(tensor.nbytes)} B" if tensor.nbytes is not None else ""]
    stated = ", ".join(part for part in size if part)
    head = f"#{tensor.index} {tensor.dtype or '?'}" + (f" [{stated}]" if stated else "")
    if not tensor.values:
        return f"{head}, no values printed"
    shown = f"{len(tensor.values)} values" + (" (elided)" if tensor.elided else "")
    exactness = "exact" if tensor.exact else (tensor.precision or "as printed")
    return f"{head} {shown}, {exactness}"


def _secondary(result: RunResult) -> str | None:
    """Findings kept beside the verdict that did not decide it (a launcher line in a log whose
    firmware printed): kind, line number and the line itself."""
    findings = result.classification.details.get("secondary", [])
    shown = [f"{item['kind']} at line {item['line_number']} ({item['line']}): not the cause, "
             "the firmware printed" for item in findings]
    return "; ".join(shown) or None


def _files(result: RunResult) -> str | None:
    """Products worth opening (decoded ETDump, ELF, output files); the transcript is implied."""
    shown = [f"{name} {path}" for name, path in result.artifacts.items() if name != "transcript"]
    return ", ".join(shown) or None


PROFILE_ROWS_SHOWN = 5


def _profile(result: RunResult) -> str | None:
    """The heaviest operators of the profile, with what the counts mean."""
    profile = result.profile
    if profile is None:
        return None
    timing = "" if profile.timing else ", not timing"
    shown = []
    for row in profile.operators[:PROFILE_ROWS_SHOWN]:
        calls = f" x{row.calls}" if row.calls > 1 else ""
        vela = f" (Vela est. {row.vela_cycles} NPU cycles)" if row.vela_cycles is not None else ""
        shown.append(f"{row.operator}{calls} {row.share_percent:.1f}%{vela}")
    more = len(profile.operators) - PROFILE_ROWS_SHOWN
    if more > 0:
        shown.append(f"{more} more in profile_csv")
    return (f"{profile.total} {profile.unit} ({profile.source}{timing}) over "
            f"{profile.inferences} inference(s): " + ", ".join(shown))


def intermediates_line(result: RunResult) -> str | None:
    """--intermediates in one line: how many operator outputs were compared with the exact
    reference's and which departs first, or why nothing was compared."""
    comparison = result.profile.intermediates if result.profile else None
    if comparison is None:
        refused = result.classification.details.get("intermediates")
        return str(refused) if refused else None
    stopped = f" (stopped at {comparison['stopped']})" if comparison.get("stopped") else ""
    departure = comparison.get("departure")
    if departure is None:
        return f"{comparison['compared']} operators compared, none departs{stopped}"
    return (f"{comparison['compared']} operators compared, operator "
            f"{departure['operator_index']} ({departure['operator']}) departs first: "
            f"{departure['differing']}/{departure['count']} elements differ (result.json "
            "classification.details.intermediates)")


def write_checks_line(result: RunResult) -> str | None:
    """The write checks in one sentence: the first write over a live tensor with its next
    step, or that there was none; where the check ran (the NPU model, same stream)."""
    checks = result.write_checks
    if checks is None:
        return None
    where = f"NPU model over the same command stream, {checks.seconds:.2f} s"
    if not checks.findings:
        return f"no write over a live tensor ({where})"
    first, more = checks.findings[0], len(checks.findings) - 1
    also = f"; {more} more in write_checks" if more else ""
    return f"partition {first['partition']}: {first['sentence']} ({where}{also})"


def summary_rows(result: RunResult) -> list[tuple[str, str]]:
    """The rows of the compact table (only those with something to say)."""
    rows: list[tuple[str, Any]] = [
        ("status", f"{result.status.value} ({result.classification.kind.value})"),
        ("target", result.target.name),
        ("simulator", result.versions.simulator or result.target.simulator),
        ("cpu ran", cpu_ran(result)),
        ("cycles", _cycles(result)),
        ("NPU", _npu_share(result)),
        ("memory", _memory(result)),
        ("vela", _vela(result)),
        ("profile", _profile(result)),
        ("intermediates", intermediates_line(result)),
        ("write checks", write_checks_line(result)),
        ("delegation", _delegation(result)),
        ("exit code", _exit_code(result)),
        ("error stats", _errors(result)),
        ("outputs", _outputs(result)),
        ("stop", result.simulation.stop_reason),
        ("also seen", _secondary(result)),
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


def comparison_line(comparison: Comparison) -> str:
    """'PASS bit-exact vs exact reference' or the tolerance numbers of a fallback."""
    verdict = "PASS" if comparison.passed else "FAIL"
    if comparison.exact is not None:
        if comparison.passed:
            return f"{verdict}: bit-exact vs the exact reference"
        where = comparison.first_mismatch
        first = f"; first at output {where.output}{where.index}" if where else ""
        return f"{verdict}: {comparison.mismatches} element(s) differ from the exact " \
               f"reference{first}"
    fallback = f" (no exact reference: {comparison.exact_fallback})" \
        if comparison.exact_fallback else ""
    mean = "" if comparison.mean_absolute_error is None \
        else f", mean abs {_number(comparison.mean_absolute_error)}"
    return (f"{verdict} vs {comparison.reference} reference{fallback}: max abs "
            f"{_number(comparison.max_absolute_error)}{mean}")


def accuracy_line(accuracy: Accuracy) -> str:
    """Output 0's distance from the float model (and the gate verdict when one was set)."""
    first = accuracy.outputs[0]
    parts = [f"SNR {_number(first.snr_db, '.1f')} dB"]
    if first.max_abs_steps is not None:
        parts.append(f"max {_number(first.max_abs_steps, '.1f')} / mean "
                     f"{_number(first.mean_abs_steps, '.2f')} quantization steps")
    else:
        parts.append(f"max abs {_number(first.max_abs_error)}")
    for name, agrees in (("top-1", first.top1), ("top-5", first.top5)):
        if agrees is not None:
            parts.append(f"{name} {'agrees' if agrees else 'differs'}")
    gate = {None: "", True: " (gate passed)", False: " (GATE FAILED)"}[accuracy.passed]
    return f"vs float model: {', '.join(parts)}{gate}"


def dataset_line(dataset: dict[str, Any]) -> str:
    """A run over many input sets: how many ran and matched, agreement with the float model
    (evaluation.json beside result.json has every sample)."""
    exact = dataset.get("exact")
    parts = [f"{dataset.get('completed')} of {dataset.get('requested')} input sets in one "
             "session", "exact n/a" if exact is None else f"{exact} bit-exact"]
    top1 = dataset.get("top1_agreement")
    if top1 is not None:
        parts.append(f"top-1 agrees with the float model on {100 * top1:.1f}%")
    return ", ".join(parts)


def _number(value: Any, spec: str = ".3g") -> str:
    return "n/a" if value is None else format(float(value), spec)


def format_result(result: RunResult) -> str:
    """A short table: verdict, target, cycles, memory, outputs, where the files are."""
    rows = [("status", f"{result.status.value} ({result.classification.kind.value})"),
            ("reason", result.reason),
            ("target", f"{result.target.name} on {result.target.simulator}")]
    ran = cpu_ran(result)
    if ran:
        rows.append(("cpu ran", ran))
    if result.status is not Status.PASS:
        rows.append(("next", result.classification.next_step))
    if result.cpu is not None and result.cpu.total is not None:
        rows.append(("cpu", f"{result.cpu.total} {_cpu_meaning(result)}"))
    if result.memory is not None:
        for name, pool in result.memory.pools.items():
            rows.append((name, f"{pool.used} / {pool.size} bytes"))
    if result.model:
        rows.insert(2, ("model", result.model))
    if result.npu is not None:
        rows.append(("npu", npu_row(result)))
    if result.vela is not None and result.vela.npu_cycles is not None:
        rows.append(("vela", f"{result.vela.npu_cycles} NPU cycles (Vela's compile-time "
                             "estimate, not measured)"))
    if result.outputs:
        rows.append(("outputs", f"{len(result.outputs)} tensors (exact)"))
    if result.comparison is not None:
        rows.append(("compare", comparison_line(result.comparison)))
    if result.write_checks is not None:
        rows.append(("writes", str(write_checks_line(result))))
    found = (("profile", _profile(result)), ("intermediates", intermediates_line(result)))
    rows += [(name, line) for name, line in found if line]
    if result.accuracy is not None and result.accuracy.outputs:
        rows.append(("accuracy", accuracy_line(result.accuracy)))
    if result.accuracy is not None and result.accuracy.dataset:
        rows.append(("samples", dataset_line(result.accuracy.dataset)))
    rows.append(("run", str(Path(result.artifacts.get("result", "")).parent)))
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name:<{width}}  {value}" for name, value in rows)


def cpu_ran(result: RunResult) -> str | None:
    """Which core executed the program when it was not the target's own: the NPU model's
    host CPU (cpu_note) or a Cortex-M's nearest superset core (cortex_m.ran_on)."""
    cortex_m = result.target.options.get("cortex_m") or {}
    note = result.target.options.get("cpu_note") or cortex_m.get("ran_on")
    return str(note) if note else None


def npu_row(result: RunResult) -> str:
    """Who executed the NPU: the NPU model (no timing) or the FVP's NPU with its PMU."""
    assert result.npu is not None
    if result.npu.executor == "npu-model":
        return (f"NPU model {result.npu.executor_version} ran "
                f"{result.npu.delegations} delegations (outputs only: no NPU timing, no PMU)")
    counters = ", ".join(f"{c.event or c.index}={c.value}" for c in result.npu.counters)
    return f"{result.npu.cycles} NPU cycles; {counters}"
