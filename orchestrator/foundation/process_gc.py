"""The garbage collector of a command's process.

A command (`invoke run`, `python -m orchestrator run`) builds a few hundred thousand objects:
its modules, their classes, the records of one run. None of them needs the cycle collector
at exit, yet the interpreter's teardown runs full collections over all of them: about 60 ms
of a 0.7 s warm run (issue 44), more than everything the run does after the simulation.
`gc.freeze()` at exit moves every live object to the collector's permanent generation, so
the teardown's collections find nothing to traverse. The teardown itself still runs: modules
are cleared and atexit handlers (registered before this one, so run after it: weakref
finalizers, logging's flush) still run. What is skipped is only the search for garbage
cycles among objects that the process is about to release anyway."""

from __future__ import annotations

import atexit
import gc

_state = {"registered": False}


def freeze_collector_at_exit() -> None:
    """Register gc.freeze to run at interpreter exit (once per process; a second call is a
    no-op). Safe in a long-lived process such as a test session: it acts only at its exit."""
    if _state["registered"]:
        return
    atexit.register(gc.freeze)
    _state["registered"] = True
