"""The top layer: each invoke task's library entry point (`<task>_command`) and its printing.
A command turns a task's option group into calls of the layers below and prints what they
return; nothing below imports from here."""

import sys

# invoke switches Python's bytecode cache off for its whole process (its --write-pyc) before it
# loads tasks.py, whose first import is this package: every module imported after that would be
# compiled from source on every run (~50 on a warm `invoke run`) unless some other `python` had
# cached it. From here on imports cache as plain `python` would (still off under
# PYTHONDONTWRITEBYTECODE or -B).
sys.dont_write_bytecode = bool(sys.flags.dont_write_bytecode)

# The record types every command makes are compiled once per interpreter, not once per process
# (issue 44: ~120 ms of a warm run): before any of them is made.
from orchestrator.foundation.dataclass_code import install  # noqa: E402 - after the line above

install()
