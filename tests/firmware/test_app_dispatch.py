"""`--app` finds apps under firmware/apps/ as its help says: an app with its own handler runs
it; another app the firmware project declares (firmware.toml [apps]) runs through the
protocol app flow (build, plan, run, records); anything else is refused naming the apps."""

from __future__ import annotations

import pytest

import orchestrator.api.run_job as run
from orchestrator.errors import OrchestratorError


def test_apps_with_handlers_keep_them():
    assert run.handler_of("runner") == run.APPS["runner"]
    assert run.handler_of("npuselftest") == run.APPS["npuselftest"]
    assert run.handler_of("selftest") == run.PROTOCOL_APP


def test_a_declared_app_without_a_handler_runs_as_a_protocol_app(monkeypatch):
    monkeypatch.setattr(run, "app_names", lambda: ["selftest", "runner", "npuselftest", "blinky"])
    assert run.handler_of("blinky") == run.PROTOCOL_APP


def test_an_unknown_app_names_the_known_ones():
    with pytest.raises(OrchestratorError) as caught:
        run.handler_of("blinky")
    message = caught.value.message
    assert "blinky" in message and "selftest" in message and "npuselftest" in message
