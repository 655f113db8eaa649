"""One table of simulator stops (data/fvp_stops.toml): the log parser and the FVP run path
reach the same verdict for every stop reason and launch failure in it."""

from __future__ import annotations

import pytest

from orchestrator.parse import parse_text, result_from_facts
from orchestrator.parse.fvp_stops import limit_of, stop_reason, stop_table
from orchestrator.results import Kind
from orchestrator.sim.fvp_run import fvp_stop

RUNNER_START = "I [executorch:arm_executor_runner.cpp:364] Model in 0x70000000 $"
STOP_REASONS = {
    "CPU time has been exceeded": Kind.CPU_TIME_LIMIT,
    "Cycle limit has been exceeded": Kind.CYCLE_LIMIT,
    "Simulated time limit reached": Kind.CYCLE_LIMIT,
    "Time limit reached": Kind.CPU_TIME_LIMIT,
}
LAUNCH_LINES = {
    "execstack": "Error: (E549) uncaught exception: /opt/FVP/models/Linux64_GCC-9.3/"
                 "libarmctmodel.so: cannot enable executable stack as shared object requires: "
                 "Invalid argument",
    "wrong_architecture": "/opt/FVP/FVP_Corstone_SSE-300_Ethos-U55: cannot execute binary file",
    "shared_library": "/opt/FVP/FVP_Corstone_SSE-320: error while loading shared libraries: "
                      "libpython3.9.so.1.0: cannot open shared object file",
    # the FVPs-on-Mac wrapper without docker (pytorch/executorch#22316, case 2)
    "launcher_command_missing": "docker: command not found",
    "launcher_script_error": "/opt/FVPs-on-Mac/fvp.sh: line 12: /opt/FVP/bin/FVP_Corstone_SSE-300: "
                             "No such file or directory",
}


@pytest.mark.parametrize(("reason", "kind"), STOP_REASONS.items())
def test_parser_and_run_path_agree_on_stop_reasons(reason, kind):
    transcript = f"{RUNNER_START}\nInfo: Simulation is stopping. Reason: {reason}.\n"
    parsed = result_from_facts(parse_text(transcript))
    assert parsed.classification.kind is kind
    assert parsed.simulation.stop_reason == reason == stop_reason(transcript)
    stop = fvp_stop(transcript)
    assert stop is not None and stop.kind == kind.value


def test_a_stop_that_is_no_limit_is_neither_side_s_limit():
    transcript = "Info: Simulation is stopping. Reason: Simulation stopped by EOT.\n"
    assert limit_of("Simulation stopped by EOT") is None and fvp_stop(transcript) is None
    assert "stop_limit" not in parse_text(transcript).markers


def test_every_launch_failure_row_is_tested_and_both_sides_agree():
    assert {row.name for row in stop_table().launch_failures} == set(LAUNCH_LINES)
    for name, line in LAUNCH_LINES.items():
        parsed = result_from_facts(parse_text(line + "\n"))
        stop = fvp_stop(f"starting\n{line}\n")
        assert parsed.classification.kind is Kind.LAUNCH_FAILURE, name
        assert stop is not None and stop.kind == "launch_failure", name
        assert parsed.reason.startswith(stop.summary) and stop.evidence == line, name
        assert parsed.classification.details["cause"] == name
        if stop.next_step:
            assert parsed.classification.next_step == stop.next_step
