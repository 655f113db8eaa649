"""Parse Vela's printed summary (and per-operator table) into JSON-ready data (no torch)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import Any

from orchestrator.results import VelaEstimate

_NUMBER = r"(?P<v>-?\d+(?:\.\d+)?)"
_MEMORY = r"(?P<m>SRAM|DRAM|On-chip Flash|Off-chip Flash)"
# (pattern, key template); {m} is the memory name, {k} the bandwidth kind.
_SUMMARY_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"^Network summary for (?P<v>\S.*?)\s*$", "network"),
    (r"^Accelerator configuration\s+(?P<v>\S+)", "accelerator_config"),
    (r"^System configuration\s+(?P<v>\S+)", "system_config"),
    (r"^Memory mode\s+(?P<v>\S+)", "memory_mode"),
    (rf"^Accelerator clock\s+{_NUMBER} MHz", "clock_mhz"),
    (rf"^Design peak {_MEMORY} bandwidth\s+{_NUMBER} GB/s", "peak_bandwidth_gb_s.{m}"),
    (rf"^Total {_MEMORY} used\s+{_NUMBER} KiB", "{m}_used_kib"),
    (rf"^(?P<m>CPU|NPU) operators = {_NUMBER}", "{m}_operators"),
    (rf"^Average {_MEMORY} bandwidth\s+{_NUMBER} GB/s", "average_bandwidth_gb_s.{m}"),
    (rf"^(?P<k>Input|Weight|Output|Total)\s+{_MEMORY} bandwidth\s+{_NUMBER} MB/batch",
     "bandwidth_mb_per_batch.{m}.{k}"),
    (rf"^Original Weights Size\s+{_NUMBER} KiB", "original_weights_kib"),
    (rf"^NPU Encoded Weights Size\s+{_NUMBER} KiB", "encoded_weights_kib"),
    (rf"^Neural network macs\s+{_NUMBER} MACs", "macs"),
    (rf"^Network Tops/s\s+{_NUMBER} Tops/s", "tops"),
    (rf"^(?P<m>NPU|Total|SRAM Access|DRAM Access|On-chip Flash Access|Off-chip Flash Access)"
     rf" cycles\s+{_NUMBER} cycles/batch", "{m}_cycles"),
    (rf"^Batch Inference time\s+{_NUMBER} ms", "inference_time_ms"),
)
_TABLE_HEADER = re.compile(r"^Original Operator\s+NNG Operator\b")
_RULE = re.compile(r"^-+( -+)+\s*$")
SUMMED = ("npu_cycles", "total_cycles", "sram_access_cycles", "dram_access_cycles",
          "on_chip_flash_access_cycles", "off_chip_flash_access_cycles", "cpu_operators",
          "npu_operators", "macs", "inference_time_ms")
PEAKED = ("sram_used_kib", "dram_used_kib", "on_chip_flash_used_kib", "off_chip_flash_used_kib")


def _slug(text: str) -> str:
    text = text.replace("%", " pct").replace("-", "_")
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")


def _number(text: str) -> int | float | str:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def _store(block: dict[str, Any], template: str, match: re.Match[str]) -> None:
    groups = match.groupdict()
    key = template.format(m=_slug(groups.get("m") or ""), k=_slug(groups.get("k") or ""))
    value = _number(groups["v"]) if key not in ("network",) else groups["v"]
    *parents, leaf = key.split(".")
    for parent in parents:
        block = block.setdefault(parent, {})
    block[leaf] = value


@cache
def _summary_lines() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The summary patterns, compiled on first parse (a warm run reads kept totals only)."""
    return tuple((re.compile(pattern), key) for pattern, key in _SUMMARY_PATTERNS)


def _summary_match(line: str) -> tuple[str, re.Match[str]] | None:
    for pattern, template in _summary_lines():
        match = pattern.match(line)
        if match:
            return template, match
    return None


def _starts_new_block(block: dict[str, Any], template: str) -> bool:
    if template == "network":
        return bool(block)
    return template == "accelerator_config" and "accelerator_config" in block


def parse_summaries(text: str) -> list[dict[str, Any]]:
    """Every network summary in `text`, in order (full or shortened form, header optional)."""
    blocks: list[dict[str, Any]] = []
    current: dict[str, Any] = {}
    for line in text.splitlines():
        found = _summary_match(line.rstrip())
        if not found:
            continue
        template, match = found
        if _starts_new_block(current, template):
            blocks.append(current)
            current = {}
        _store(current, template, match)
    if current:
        blocks.append(current)
    return [block for block in blocks if "accelerator_config" in block]


def _columns(header: str, rule: str) -> list[str]:
    spans = [match.span() for match in re.finditer(r"-+", rule)]
    return [_slug(header[start:end].strip() or f"column {index}")
            for index, (start, end) in enumerate(spans)]


def _row(line: str, columns: list[str]) -> dict[str, Any] | None:
    tokens = line.split()
    if len(tokens) < len(columns):
        return None
    values = tokens[:len(columns) - 1] + [" ".join(tokens[len(columns) - 1:])]
    return {column: (value if column in ("name",) else _number(value))
            for column, value in zip(columns, values, strict=True)}


def _tables(lines: list[str]) -> Iterator[list[dict[str, Any]]]:
    index = 0
    while index < len(lines) - 1:
        if _TABLE_HEADER.match(lines[index]) and _RULE.match(lines[index + 1]):
            columns = _columns(lines[index], lines[index + 1])
            rows = []
            index += 2
            while index < len(lines) and lines[index].strip():
                row = _row(lines[index], columns)
                if row is None:
                    break
                rows.append(row)
                index += 1
            yield rows
        else:
            index += 1


def parse_operator_tables(text: str) -> list[list[dict[str, Any]]]:
    """Every per-operator performance table (`--verbose-performance`) in `text`."""
    return list(_tables(text.splitlines()))


def _totals(partitions: list[dict[str, Any]]) -> dict[str, Any]:
    totals: dict[str, Any] = {}
    for key in SUMMED:
        values = [block[key] for block in partitions if key in block]
        if values:
            totals[key] = round(sum(values), 6) if isinstance(values[0], float) else sum(values)
    for key in PEAKED:
        values = [block[key] for block in partitions if key in block]
        if values:
            totals[key] = max(values)
    return totals


def parse_vela_output(text: str) -> dict[str, Any]:
    """Vela's console output -> {partitions, operators, totals}; empty lists if none found."""
    partitions = parse_summaries(text)
    tables = parse_operator_tables(text)
    if len(tables) == len(partitions):
        for block, rows in zip(partitions, tables, strict=True):
            block["operators"] = rows
    return {
        "partitions": partitions,
        "operators": [row for rows in tables for row in rows],
        "totals": _totals(partitions),
        "has_cycle_estimate": any("npu_cycles" in block for block in partitions),
    }


VELA_FIELDS = {"accelerator": "accelerator_config", "system_config": "system_config",
               "memory_mode": "memory_mode", "clock_mhz": "clock_mhz",
               "npu_operators": "npu_operators", "cpu_operators": "cpu_operators",
               "npu_cycles": "npu_cycles", "total_cycles": "total_cycles",
               "inference_time_ms": "inference_time_ms", "macs": "macs",
               "sram_used_kib": "sram_used_kib",
               "offchip_flash_used_kib": "off_chip_flash_used_kib"}


def vela_estimate(totals: dict[str, Any] | None) -> VelaEstimate | None:
    """The compile stage's Vela totals as the RunResult's VelaEstimate."""
    if not totals:
        return None
    access = {key.removesuffix("_access_cycles"): value for key, value in totals.items()
              if key.endswith("_access_cycles")}
    known = {field: totals[key] for field, key in VELA_FIELDS.items()
             if totals.get(key) is not None}
    return VelaEstimate(access_cycles=access, **known)
