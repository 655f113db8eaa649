"""Upstream script lines: run.sh build output, run_fvp.sh banner and its trailer verdict."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, flag, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine
from orchestrator.parse.simulator import note_simulator
from orchestrator.results.model import Kind

ELF_PATH_NEXT = "elf_path_next"  # marker: the ELF path follows on the next line
SCRIPT_TAG = r"^\[(?:[\w./-]*/)?(?:run_fvp(?:\.sh)?|build_executorch_runner|[\w.-]+\.sh)\]"


@rule(SCRIPT_TAG + r" Simulation complete, (-?\d+)")
def _simulation_complete(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.simulation.wrapper_exit_code = int(match[1])
    facts.mark("wrapper_done", line.number)


@rule(r"^(No problems found!|Found ERROR)")
def _verdict(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.simulation.wrapper_verdict = match[1]


@rule(r"^Running (\S+) for (\S+) run with FVP:\s*(\S+) num_macs:\s*(\d+)(?: timeout:\s*(\d+))?")
def _run_banner(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    facts.artifacts.setdefault("elf", match[1])
    facts.target.name = facts.target.name or match[2]
    facts.target.simulator = facts.target.simulator or match[3]
    note_simulator(match[3], facts)
    facts.target.options["num_macs"] = int(match[4])
    if match[5]:
        facts.target.options["timeout_s"] = int(match[5])


@rule(SCRIPT_TAG + r" Generated baremetal elf file:?\s*(\S*)")
def _elf_announced(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    if match[1]:
        facts.artifacts["elf"] = match[1]
    else:
        facts.markers[ELF_PATH_NEXT] = line.number  # the latest announcement, not the first


@rule(r"^CMake Error(?: at (\S+?):(\d+))?")
def _cmake_error(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    where = f" at {match[1]}:{match[2]}" if match[1] else ""
    facts.pre_run_problem(Kind.BUILD_FAILURE, f"CMake failed{where}", line)


@rule(r"^\[\d+/\d+\] (.*)$")
def _ninja_step(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    note_simulator(match[1], facts)
    facts.mark("build", line.number)


# GNU ld --print-memory-usage (west build, CMake builds): header and one line per region.
LINK_MEMORY_USAGE = (
    r"^Memory region\s+Used Size\s+Region Size|^\s*\S+:\s+\d+ [KMG]?B\s+\d+ [KMG]?B\s+[\d.]+%$"
)


class WrapperLines(RuleConsumer):
    """Lines of examples/arm/run.sh, build_executor_runner.sh and run_fvp.sh (not the runner)."""

    rules = (
        _simulation_complete,
        _verdict,
        _run_banner,
        _elf_announced,
        flag(r"^Checking for (?:a etdump|problems) in log", "wrapper_checks"),
        flag(r"^\+ \S", "xtrace"),
        flag(r"^\[\s*\d+%\] ", "build"),
        _cmake_error,
        _ninja_step,
        flag(LINK_MEMORY_USAGE, "build"),
        flag(r"The Corstone FVPs are cycle accurate for the NPU part", "wrapper"),
        flag(SCRIPT_TAG, "wrapper"),
    )

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Take the ELF path printed on the line after `Generated baremetal elf file:`."""
        announced = facts.markers.get(ELF_PATH_NEXT)
        if announced is not None and announced == line.number - 1 and line.text.strip():
            facts.artifacts["elf"] = line.text.strip()
            return True
        return super().feed(line, facts)
