"""arm_perf_monitor report: NPU PMU counters (labelled by the event list) and CPU cycles."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, flag, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.results.model import CpuCycles, PmuCounter

PER_INFERENCE = r"(?:\s*\([\d.]+ per inference\))?"


@rule(r"^NPU Inferences\s*:\s*(\d+)")
def _inferences(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.npu_pmu().inferences = int(match[1])


@rule(r"^NPU delegations\s*:\s*(\d+)")
def _delegations(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.npu_pmu().delegations = int(match[1])


@rule(r"^(\S+) : cycle_cnt : (\d+) cycles" + PER_INFERENCE)
def _operator_cycles(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.cpu_cycles().per_operator[match[1]] = int(match[2])


@rule(r"^Operator\(s\) total: (\d+) CPU cycles")
def _operators_total(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.cpu_cycles().operators_total = int(match[1])


@rule(r"^Inference runtime: (\d+) CPU cycles total")
def _runtime(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.cpu_cycles().total = int(match[1])


@rule(r"^Inference (CPU|NPU) ratio: ([\d.]+|\?\.\?\?) %")
def _ratio(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    value = None if "?" in match[2] else float(match[2])
    setattr(facts.cpu_cycles(), f"{match[1].lower()}_ratio_percent", value)


@rule(r"^cpu_wait_for_npu_cntr\s*:\s*(\d+) CPU cycles")
def _npu_wait(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.cpu_cycles().npu_wait = int(match[1])


@rule(r"^NOTE: CPU cycle values and ratio calculations require (.*)$")
def _note(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.cpu_cycles().source += f"; runner note: requires {match[1]}"


@rule(r"^ethosu_pmu_cycle_cntr\s*:\s*(\d+)")
def _npu_cycles(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.npu_pmu().cycles = int(match[1])
    facts.mark("npu_pmu", line.number)


@rule(r"^ethosu_pmu_cntr(\d+)\s*:\s*(\d+)")
def _counter(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    pmu = facts.npu_pmu()
    pmu.counters = [c for c in pmu.counters if c.index != int(match[1])]
    pmu.counters.append(PmuCounter(index=int(match[1]), value=int(match[2])))
    label_counters(facts)


@rule(r"^Ethos-U PMU Events\s*:\s*\[(.*)\]")
def _events(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.runner["pmu_events"] = [name.strip() for name in match[1].split(",") if name.strip()]
    facts.npu_pmu().event_source = "runner event list"
    label_counters(facts)


def label_counters(facts: LogFacts) -> None:
    """Name each counter by its position in the printed event list."""
    events = facts.runner.get("pmu_events", [])
    if facts.npu is None:
        return
    for counter in facts.npu.counters:
        if counter.index < len(events):
            counter.event = events[counter.index]


ESP_SOURCE = "esp_perf_monitor (the ESP32 CPU cycle counter)"
ESP_NOTE = "cycles counted by the CPU of the board that ran the model (real hardware timing)"


@rule(r"^Total CPU cycles: (\d+)" + PER_INFERENCE)
def _board_cycles(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    if facts.cpu is None:
        facts.cpu = CpuCycles(source=ESP_SOURCE, note=ESP_NOTE)
    facts.cpu.total = int(match[1])


class PerfMonitor(RuleConsumer):
    """Lines printed by arm_perf_monitor.cpp StopMeasurements."""

    et_only = True
    rules = (
        _inferences,
        _delegations,
        _operator_cycles,
        _operators_total,
        _runtime,
        _ratio,
        _npu_wait,
        _note,
        _npu_cycles,
        _counter,
        _events,
        _board_cycles,
        flag(r"^(?:Profiler report, CPU cycles per operator|Ethos-U PMU report):", "perf_report"),
    )
