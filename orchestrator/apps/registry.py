"""Every app by name: the model app (the ExecuTorch runner), the protocol self-test (and any
other app firmware.toml declares), the NPU self-test and the upstream-ELF lane. `invoke run`
and the regress lanes find their app here; each app's code is imported when it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from orchestrator.apps.app import App, Firmware, ModelUse
from orchestrator.firmware.build.config import app_names
from orchestrator.targets.catalogue import unknown_name_error

if TYPE_CHECKING:
    from orchestrator.foundation.paths import Scratch
    from orchestrator.options.run import RunRequest
    from orchestrator.results import RunResult


def _run_model(request: RunRequest, work: Scratch) -> RunResult:
    from orchestrator.apps.model import run_model

    return run_model(request, work)


def _run_protocol_app(request: RunRequest, work: Scratch) -> RunResult:
    from orchestrator.apps.protocol_selftest import run_app

    return run_app(request, work)


def _run_npu_selftest(request: RunRequest, work: Scratch) -> RunResult:
    from orchestrator.apps.npu_selftest.run import run_npu_selftest

    return run_npu_selftest(request, work)


def _run_upstream_elf(request: RunRequest, work: Scratch) -> RunResult:
    from orchestrator.apps.upstream_elf import run_upstream_elf

    return run_upstream_elf(request, work)


def _run_artifact(request: RunRequest, work: Scratch) -> RunResult:
    from orchestrator.artifacts.run import run_pte

    return run_pte(request, work)


MODEL = App("runner", Firmware.RUNNER, ModelUse.REQUIRED,
            "the model's outputs compared with the host's exact reference, its cycles, PMU "
            "counters (on an FVP) and memory", _run_model)
PROTOCOL_SELFTEST = App("selftest", Firmware.PROTOCOL_APP, ModelUse.NONE,
                        "the app's own checks and the protocol's records", _run_protocol_app)
NPU_SELFTEST = App("npuselftest", Firmware.NPU_SELFTEST, ModelUse.OPTIONAL,
                   "the device's checks of one compiled case on the NPU model "
                   "against the host's TOSA reference", _run_npu_selftest)
UPSTREAM_ELF = App("elf", Firmware.UPSTREAM_ELF, ModelUse.NONE,
                   "what upstream's runner printed, read by the upstream log parser",
                   _run_upstream_elf)
ARTIFACT = App("pte", Firmware.RUNNER, ModelUse.NONE,
               "a ready .pte's outputs, or every test case of a .bpte checked against its "
               "expected outputs (--pte)", _run_artifact)
APPS: tuple[App, ...] = (MODEL, PROTOCOL_SELFTEST, NPU_SELFTEST, UPSTREAM_ELF, ARTIFACT)


def app_named(name: str) -> App:
    """The app called `name`: one of APPS, else a protocol app for another app the firmware
    project declares (firmware/apps/<name>, orchestrator/data/firmware.toml)."""
    for app in APPS:
        if app.name == name:
            return app
    if name in app_names():
        return protocol_app(name)
    raise unknown_name_error("app", name, known_app_names(), "invoke run --help")


def protocol_app(name: str) -> App:
    """A declared app that needs no model, run as the protocol self-test is."""
    if name == PROTOCOL_SELFTEST.name:
        return PROTOCOL_SELFTEST
    return App(name, Firmware.PROTOCOL_APP, ModelUse.NONE, PROTOCOL_SELFTEST.result,
               _run_protocol_app)


def known_app_names() -> list[str]:
    return sorted({*(app.name for app in APPS), *app_names()})
