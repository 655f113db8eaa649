"""The one type of what a run asks of an FVP beyond the command line every simulator gets: the
Ethos-U --fast mode and the PMU trace. `invoke run --fast` fills it (RunOptions.fvp), the run
plan carries it (SimOptions.fvp) and the FVP command line reads it (sim/fvp.FvpOptions)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FvpExtras:
    """fast: the Ethos-U model's --fast (no timing, no PMU cycles); pmu_trace: write the
    Ethos-U PMU trace to the run directory."""

    fast: bool = False
    pmu_trace: bool = False
