"""`--app` finds apps in one typed registry (orchestrator.apps.registry): the four apps with
their own flow keep it; another app the firmware project declares (firmware.toml [apps]) runs
through the protocol app flow (build, plan, run, records); anything else is refused naming
the apps."""

from __future__ import annotations

import pytest

from orchestrator.apps import registry
from orchestrator.apps.app import Firmware, ModelUse
from orchestrator.foundation.errors import OrchestratorError


def test_apps_with_their_own_flow_keep_it():
    assert registry.app_named("runner") is registry.MODEL
    assert registry.app_named("npuselftest") is registry.NPU_SELFTEST
    assert registry.app_named("selftest") is registry.PROTOCOL_SELFTEST
    assert registry.app_named("elf") is registry.UPSTREAM_ELF
    assert registry.MODEL.firmware is Firmware.RUNNER
    assert registry.MODEL.model is ModelUse.REQUIRED
    assert [app.name for app in registry.APPS] == ["runner", "selftest", "npuselftest", "elf",
                                                   "pte"]


def test_every_app_runs_a_function_not_a_name():
    assert all(callable(app.run) and not isinstance(app.run, str) for app in registry.APPS)


def test_a_declared_app_without_its_own_flow_runs_as_a_protocol_app(monkeypatch):
    monkeypatch.setattr(registry, "app_names",
                        lambda: ["selftest", "runner", "npuselftest", "blinky"])
    blinky = registry.app_named("blinky")
    assert (blinky.name, blinky.firmware, blinky.model) == ("blinky", Firmware.PROTOCOL_APP,
                                                            ModelUse.NONE)
    assert blinky.run is registry.PROTOCOL_SELFTEST.run


def test_an_unknown_app_names_the_known_ones():
    with pytest.raises(OrchestratorError) as caught:
        registry.app_named("blinky")
    message = caught.value.message
    assert "blinky" in message and "selftest" in message and "npuselftest" in message
