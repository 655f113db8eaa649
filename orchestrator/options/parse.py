"""The options of `invoke parse`: which log, where its ETDump goes, which target's counters."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import option, text


@dataclass(frozen=True)
class ParseTask:
    """`invoke parse LOGFILE`: a saved console log (or a folder of them) to a RunResult."""

    logfile: str = option(help="a saved console log: upstream runner / run_fvp.sh / FVP / "
                          "Zephyr, or a transcript.log of this tool; or a folder: every "
                          ".log/.txt in it, one table", parse=text, matrix=False,
                          positional=True)
    etdump_dir: str | None = option(None, "where decoded ETDump blocks go (default: "
                                    "<logfile>.etdump/)", parse=text, matrix=False)
    target: str | None = option(None, "target name, to label PMU counters when the log printed "
                                "no event list", parse=text, matrix=False)
    etrecord: str | None = option(None, "the ETRecord of the .pte that ran (upstream "
                                  "aot_arm_compiler --etrecord, or a product's etrecord.bin): "
                                  "names the operators of the log's ETDump profile",
                                  parse=text, matrix=False)
