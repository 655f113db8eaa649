"""A run's time limits: the simulator's catalogue defaults (targets.toml `limits`) with the
run's overrides, and the setting a stopped run should raise."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.targets import Simulator

CATALOGUE_FILE = "orchestrator/data/targets.toml"


@dataclass(frozen=True)
class RunLimits:
    """The limits one run uses. deadline_s: the run's time limit (an FVP's --timelimit);
    host_deadline_s: when the host kills it; idle_s: the no-output watchdog (None: off)."""

    simulator: str
    deadline_s: float
    idle_s: float | None
    host_deadline_s: float
    deadline_from: str    # "--timeout" or the catalogue key it came from
    idle_from: str

    def raise_hint(self, stopped_by: str) -> str:
        """'raise --timeout (now 600 s, from ...)' for a run stopped by `stopped_by`."""
        if stopped_by == "no_output":
            return (f"raise --idle-timeout (now {self.idle_s:g} s, from {self.idle_from}; "
                    "0 turns the watchdog off)")
        return f"raise --timeout (now {self.deadline_s:g} s, from {self.deadline_from})"

    def record(self) -> dict[str, float | str | None]:
        """What the result records about the limits a run had."""
        return {"simulator": self.simulator, "deadline_s": self.deadline_s, "idle_s": self.idle_s,
                "host_deadline_s": self.host_deadline_s, "deadline_from": self.deadline_from,
                "idle_from": self.idle_from}


def recorded_hint(options: Mapping[str, Any], stopped_by: str) -> str | None:
    """raise_hint() from the limits a result recorded (target.options["limits"])."""
    record = options.get("limits")
    if not isinstance(record, Mapping):
        return None
    return RunLimits(**record).raise_hint(stopped_by)


def run_limits(simulator: Simulator, timeout_s: float | None = None,
               idle_timeout_s: float | None = None) -> RunLimits:
    """The catalogue limits of `simulator` with the run's overrides (None: keep the default;
    an idle timeout of 0: no watchdog)."""
    defaults = simulator.limits
    key = f"{CATALOGUE_FILE} simulators.{simulator.name}.limits"
    deadline = defaults.deadline_s if timeout_s is None else float(timeout_s)
    idle = defaults.idle_s if idle_timeout_s is None else (float(idle_timeout_s) or None)
    return RunLimits(simulator=simulator.name, deadline_s=deadline, idle_s=idle,
                     host_deadline_s=deadline + defaults.host_grace_s,
                     deadline_from=f"{key}.deadline_s" if timeout_s is None else "--timeout",
                     idle_from=f"{key}.idle_s" if idle_timeout_s is None else "--idle-timeout")
