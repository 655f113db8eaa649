"""One console line, split into ExecuTorch log fields when it has an ET_LOG prefix of any era."""

from __future__ import annotations

import re
from dataclasses import dataclass

# Every ET_LOG prefix generation (see tests/fixtures/transcripts/INDEX.md), and Zephyr's own
# log prefix (ZEPHYR_LOG below):
#   I executorch:runner.cpp:64] msg                      v0.1-v0.4, no bracket
#   I [executorch:arm_executor_runner.cpp:364] msg        late 2024 - early 2025
#   I [executorch:arm_executor_runner.cpp:489 main()] msg v0.6+
#   I [executorch:arm_executor_runner.cpp:zu ()] main     newlib-nano %zu bug
#   I [executorch:main.cpp] msg                           Zephyr sample, no line number
ET_PREFIX = re.compile(
    r"^(?P<level>[DIEF?]) (?P<bracket>\[)?executorch:(?P<file>[^\s:\]]+)"
    r"(?::(?P<line>\d+|zu))?(?: (?P<function>[^\]\s]*)\(\))?\]"
    r"(?: ?(?P<message>.*))?$",
    re.IGNORECASE,
)
# Zephyr's logging subsystem: `[00:00:00.123,456] <inf> module: message` (firmware output; the
# message is what the application logged, so the runner rules read it like a plain line).
ZEPHYR_LOG = re.compile(
    r"^\[[\d:.,]+\] <(?:inf|wrn|err|dbg)> (?P<module>[\w.-]+): (?P<message>.*)$"
)
ZEPHYR_LOG_FORMAT = "zephyr-log"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# A serial terminal's own time stamp in front of every line (`[2019-09-04 17:37:27.873] `,
# `10:32:33.479> `); Zephyr's `[00:00:00.123,456] <inf>` stamps are firmware output and stay.
TERMINAL_STAMP = re.compile(
    r"^(?:\[\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:\.\d+)?\] ?|\d\d:\d\d:\d\d\.\d+> ?)"
)
# End of transmission: the runner's final `\x04` (FVP shutdown_on_eot); some renderings of a
# log show it as U+2666. An empty ET_LOG message is not EOT (Zephyr samples print those mid-run).
EOT_CHARACTERS = "\x04\u2666"
EOT = re.compile(rf"^\s*[{EOT_CHARACTERS}]\s*$")


@dataclass(frozen=True)
class LogLine:
    """A console line; ET_LOG lines also carry level, source file, line, function, message."""

    number: int
    text: str
    message: str
    level: str | None = None
    source: str | None = None
    source_line: int | None = None
    function: str | None = None
    format: str | None = None

    @property
    def is_et(self) -> bool:
        """True for an ExecuTorch ET_LOG line."""
        return self.level is not None

    @property
    def is_problem_level(self) -> bool:
        """True for ET_LOG Error and Fatal lines."""
        return self.level in ("E", "F")


def clean(raw: str) -> str:
    """Drop the line ending, carriage returns and ANSI colour codes."""
    return TERMINAL_STAMP.sub("", ANSI_ESCAPE.sub("", raw.rstrip("\n").replace("\r", "")))


def prefix_format(match: re.Match[str]) -> str:
    """Name the ET_LOG prefix generation of a matched line."""
    if not match["bracket"]:
        return "no-bracket"
    if match["line"] is None:
        return "zephyr-no-line"
    if match["line"].lower() == "zu":
        return "newlib-zu"
    return "bracket-function" if match["function"] else "bracket"


def split_line(number: int, raw: str) -> LogLine:
    """Parse one raw console line (never raises)."""
    text = clean(raw)
    match = ET_PREFIX.match(text)
    if match is None:
        zephyr = ZEPHYR_LOG.match(text)
        if zephyr is not None:
            return LogLine(number=number, text=text, message=zephyr["message"].rstrip(),
                           source=zephyr["module"], format=ZEPHYR_LOG_FORMAT)
        return LogLine(number=number, text=text, message=text)
    line = match["line"]
    return LogLine(
        number=number,
        text=text,
        message=(match["message"] or "").rstrip(),
        level=match["level"].upper(),
        source=match["file"],
        source_line=int(line) if line and line.isdigit() else None,
        function=match["function"] or None,
        format=prefix_format(match),
    )
