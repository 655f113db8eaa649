"""Vela compiler reports: the network summary (estimates) and the per-operator table."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, flag, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine

TEXT_FIELDS = {
    "Accelerator configuration": "accelerator",
    "System configuration": "system_config",
    "Memory mode": "memory_mode",
}
NUMBER_FIELDS = {
    "Accelerator clock": ("clock_mhz", float),
    "Total SRAM used": ("sram_used_kib", float),
    "Total Off-chip Flash used": ("offchip_flash_used_kib", float),
    "Total DRAM used": ("dram_used_kib", float),
    "Total On-chip Flash used": ("onchip_flash_used_kib", float),
    "Original Weights Size": ("original_weights_kib", float),
    "NPU Encoded Weights Size": ("encoded_weights_kib", float),
    "Network Tops/s": ("network_tops_per_s", float),
    "Neural network macs": ("macs", int),
    "NPU cycles": ("npu_cycles", int),
    "Total cycles": ("total_cycles", int),
}
SUMMARY = re.compile(
    rf"^({'|'.join(map(re.escape, [*TEXT_FIELDS, *NUMBER_FIELDS]))})\s{{2,}}([\d.]+|\S+)"
)


@rule(SUMMARY.pattern)
def _summary(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    vela = facts.vela_estimate()
    if match[1] in TEXT_FIELDS:
        setattr(vela, TEXT_FIELDS[match[1]], match[2])
        return
    name, kind = NUMBER_FIELDS[match[1]]
    setattr(vela, name, kind(match[2]))


@rule(r"^(CPU|NPU) operators = (\d+)")
def _operators(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    setattr(facts.vela_estimate(), f"{match[1].lower()}_operators", int(match[2]))


def memory_key(name: str) -> str:
    """'Off-chip Flash' -> 'offchip_flash' (the keys access_cycles uses too)."""
    return name.lower().replace("-", "").replace(" ", "_")


@rule(r"^(SRAM|DRAM|On-chip Flash|Off-chip Flash) Access cycles\s+(\d+)")
def _access(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.vela_estimate().access_cycles[memory_key(match[1])] = int(match[2])


@rule(r"^(Design peak|Average) (.+?) bandwidth\s+([\d.]+) GB/s")
def _bandwidth(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    vela = facts.vela_estimate()
    peak = match[1] == "Design peak"
    table = vela.design_peak_bandwidth_gbs if peak else vela.average_bandwidth_gbs
    table[memory_key(match[2])] = float(match[3])


@rule(r"^(Input|Weight|Output|Total)\s+(.+?) bandwidth\s+(per input\s+)?([\d.]+) MB/")
def _traffic(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    per_memory = facts.vela_estimate().bandwidth_mb_per_batch.setdefault(memory_key(match[2]), {})
    name = match[1].lower() + ("_per_inference" if match[3] else "")
    per_memory[name] = float(match[4])


@rule(r"^Batch Inference time\s+([\d.]+) ms,\s+([\d.]+) inferences/s")
def _inference_time(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    vela = facts.vela_estimate()
    vela.inference_time_ms, vela.inferences_per_second = float(match[1]), float(match[2])


class VelaSummary(RuleConsumer):
    """The `Network summary` block Vela prints (all numbers are compile-time estimates)."""

    rules = (
        _summary,
        _operators,
        _access,
        _inference_time,
        _bandwidth,
        _traffic,
        flag(
            r"^(?:Network summary for|"
            r"Info: The numbers below are internal compiler estimates|"
            r"For performance numbers the compiled network should be run)",
            "vela",
        ),
    )


def column_key(title: str) -> str:
    """'Peak% (Staging)' -> 'peak_staging'."""
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")


def cell_value(text: str) -> int | float | str:
    """A table cell as a number when it is one."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


class VelaOperatorTable:
    """Vela's per-operator performance table, columns cut by its dashed ruler line."""

    def __init__(self) -> None:
        self._header: str | None = None
        self._spans: list[tuple[int, int]] | None = None

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Consume the header, the ruler and each row until a blank line."""
        text = line.text
        if text.startswith("Original Operator") and "NNG Operator" in text:
            self._header, self._spans = text, None
            return True
        if self._header is None:
            return False
        if self._spans is None and text.strip() and set(text.strip()) <= {"-", " "}:
            self._spans = [found.span() for found in re.finditer(r"-+", text)]
            return True
        if self._spans is None or not text.strip():
            self._header = self._spans = None
            return False
        facts.vela_estimate().per_operator.append(table_row(self._header, self._spans, text))
        return True


def table_row(header: str, spans: list[tuple[int, int]], text: str) -> dict[str, int | float | str]:
    """One table row as {column_key: value}; the last column takes the rest of the line."""
    cuts: list[tuple[int, int | None]] = [*spans[:-1], (spans[-1][0], None)]
    return {
        column_key(header[start:end]): cell_value(text[start:end].strip()) for start, end in cuts
    }
