#!/usr/bin/env python3
"""A replay stand-in for a Corstone FVP binary (tests only): it records how it was started
(argv, environment) and plays a real recorded transcript with a start-up delay, a pace per
line and silences after given lines, then exits with the recorded exit status. Settings:
<argv0>.replay.json.

Output is buffered the way the FVP's C stdio buffers it: line by line when stdout is a
terminal, in 4 KiB blocks when it is a pipe (glibc's full buffering of a pipe), so a host
that reads a pipe sees nothing until a block fills or the program exits."""

import json
import os
import sys
import time

BLOCK = 4096


class CStdout:
    """stdout as C stdio buffers it: line-buffered on a terminal, 4 KiB blocks otherwise."""

    def __init__(self):
        self.line_buffered = os.isatty(1)
        self.pending = b""

    def write(self, line: bytes) -> None:
        self.pending += line
        if self.line_buffered:
            self.flush()
        while len(self.pending) >= BLOCK:
            os.write(1, self.pending[:BLOCK])
            self.pending = self.pending[BLOCK:]

    def flush(self) -> None:
        while self.pending:
            written = os.write(1, self.pending)
            self.pending = self.pending[written:]


def main() -> int:
    me = os.path.abspath(sys.argv[0])
    with open(me + ".replay.json") as handle:
        plan = json.load(handle)
    with open(me + ".invocation.json", "w") as handle:
        json.dump({"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd(),
                   "stdout_isatty": os.isatty(1)}, handle)
    silences = {int(index): seconds for index, seconds in plan.get("silences", {}).items()}
    out = CStdout()
    time.sleep(plan.get("startup_s", 0.0))
    with open(plan["transcript"], "rb") as handle:
        for index, line in enumerate(handle):
            out.write(line)
            time.sleep(plan.get("line_s", 0.0) + silences.get(index, 0.0))
    time.sleep(plan.get("hang_s", 0.0))
    out.flush()
    return int(plan.get("exit_code", 0))


if __name__ == "__main__":
    sys.exit(main())
