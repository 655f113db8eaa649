#!/usr/bin/env python3
"""A replay stand-in for a Corstone FVP binary (tests only): it records how it was started
(argv, environment) and plays a real recorded transcript with a start-up delay and a pace
per line, then exits with the recorded exit status. Settings: <argv0>.replay.json."""

import json
import os
import sys
import time


def main() -> int:
    me = os.path.abspath(sys.argv[0])
    with open(me + ".replay.json") as handle:
        plan = json.load(handle)
    with open(me + ".invocation.json", "w") as handle:
        json.dump({"argv": sys.argv, "env": dict(os.environ), "cwd": os.getcwd()}, handle)
    time.sleep(plan.get("startup_s", 0.0))
    with open(plan["transcript"], encoding="utf-8", errors="replace") as handle:
        for line in handle:
            sys.stdout.write(line)
            sys.stdout.flush()
            time.sleep(plan.get("line_s", 0.0))
    time.sleep(plan.get("hang_s", 0.0))
    return int(plan.get("exit_code", 0))


if __name__ == "__main__":
    sys.exit(main())
