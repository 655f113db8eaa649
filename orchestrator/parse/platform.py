"""Which platform the firmware ran on, from the lines it and its build print (Zephyr, west),
and the Ethos-U driver's own log lines (firmware output on any platform)."""

from __future__ import annotations

import re

from orchestrator.parse.consumer import RuleConsumer, flag, rule
from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import ZEPHYR_LOG_FORMAT, LogLine
from orchestrator.parse.memory import ZEPHYR

PLATFORM = "platform"


def zephyr(facts: LogFacts) -> None:
    """Record that the firmware is a Zephyr application."""
    facts.runner[PLATFORM] = ZEPHYR


@rule(r"^\*\*\* Booting Zephyr OS build (\S+)")
def _booting(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    zephyr(facts)
    facts.versions.extra.setdefault("zephyr", match[1])
    facts.mark("firmware", line.number)


def zephyr_log_line(line: LogLine, facts: LogFacts) -> None:
    """A Zephyr LOG_* line is Zephyr firmware output, whichever consumer reads its message."""
    if line.format == ZEPHYR_LOG_FORMAT:
        zephyr(facts)
        facts.mark("firmware", line.number)


@rule(r"^Generating files from (\S+zephyr\.elf) for board: (\S+)")
def _west_build(match: re.Match[str], line: LogLine, facts: LogFacts) -> None:
    zephyr(facts)
    facts.artifacts.setdefault("elf", match[1])
    facts.target.options.setdefault("board", match[2])
    facts.mark("build", line.number)


# ethos-u-core-driver src/ethosu_log.h: LOG_INFO "I: ", LOG_DEBUG "D: %s(): " (LOG_WARN's "W: "
# is also apt's, so it is left out; LOG_ERR's "E: " is an error line, see faults.ERROR_LINE).
ETHOSU_DRIVER_LOG = r"^[ID]: \S"


class PlatformLines(RuleConsumer):
    """Zephyr's boot banner and log lines, the Ethos-U driver's log, west's build output."""

    rules = (_booting, _west_build, flag(ETHOSU_DRIVER_LOG, "firmware"))

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """The rules; a Zephyr log line no other consumer read is still known firmware output."""
        return super().feed(line, facts) or line.format == ZEPHYR_LOG_FORMAT
