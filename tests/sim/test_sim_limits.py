"""Per-simulator time limits are catalogue data; a run overrides them; a stop names them."""

from __future__ import annotations

import sys

from orchestrator.protocol import StreamParser
from orchestrator.sim.classify import verdict_of
from orchestrator.sim.limits import run_limits
from orchestrator.sim.process import run_process
from orchestrator.targets import load_catalogue


def test_fvp_defaults_are_upstreams_and_the_watchdog_is_off():
    for name in ("fvp-corstone-300-u55", "fvp-corstone-300-u65", "fvp-corstone-320"):
        limits = run_limits(load_catalogue().simulators[name])
        assert limits.deadline_s == 600.0 and limits.idle_s is None
        assert limits.host_deadline_s > limits.deadline_s   # the FVP's own stop comes first


def test_qemu_keeps_short_limits():
    limits = run_limits(load_catalogue().simulators["qemu"])
    assert (limits.deadline_s, limits.idle_s, limits.host_deadline_s) == (60.0, 20.0, 60.0)


def test_overrides_and_zero_turns_the_watchdog_off():
    qemu = load_catalogue().simulators["qemu"]
    limits = run_limits(qemu, timeout_s=5, idle_timeout_s=0)
    assert (limits.deadline_s, limits.idle_s) == (5.0, None)
    assert limits.deadline_from == "--timeout" and limits.idle_from == "--idle-timeout"


def test_stop_hint_names_the_setting_to_raise():
    fvp = run_limits(load_catalogue().simulators["fvp-corstone-320"])
    hint = fvp.raise_hint("deadline")
    assert "--timeout" in hint and "simulators.fvp-corstone-320.limits.deadline_s" in hint
    qemu = run_limits(load_catalogue().simulators["qemu"])
    assert "--idle-timeout" in qemu.raise_hint("no_output")
    assert "simulators.qemu.limits.idle_s" in qemu.raise_hint("no_output")


def test_a_host_stop_verdict_names_the_setting(tmp_path):
    qemu = load_catalogue().simulators["qemu"]
    limits = run_limits(qemu, timeout_s=30, idle_timeout_s=0.5)
    outcome = run_process([sys.executable, "-c", "import time; time.sleep(30)"], cwd=tmp_path,
                          log_path=tmp_path / "log", deadline_s=limits.host_deadline_s,
                          idle_s=limits.idle_s)
    verdict = verdict_of(outcome, StreamParser().finish(), limits=limits)
    assert verdict.cause == "hang"
    assert "raise --idle-timeout (now 0.5 s, from --idle-timeout" in verdict.summary
