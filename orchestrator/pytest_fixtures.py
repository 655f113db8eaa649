"""What the pytest plugin's `--ethosu` switches on (orchestrator.pytest_plugin): the
`ethosu` fixture (the API on the session's scratch, reports recorded as JUnit properties), the
`ethosu_target` parametrization by `@pytest.mark.ethosu(targets=[...])`, and OrchestratorError
reported as its one line. `-p orchestrator.pytest_fixtures` switches it on too."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from orchestrator import api
from orchestrator.api.reports import Report
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch

Job = TypeVar("Job", bound=Report)


class Ethosu:
    """The API for one test: the session's scratch, reports recorded as JUnit properties."""

    def __init__(self, root: Path, record: Callable[[str, object], None]) -> None:
        self.scratch = root
        self._record = record

    def compile(self, **flags: Any) -> api.reports.CompileReport:
        return self._recorded(api.compile(scratch=self.scratch, quiet=True, **flags))

    def run(self, **flags: Any) -> api.reports.RunReport:
        return self._recorded(api.run(scratch=self.scratch, quiet=True, **flags))

    def verify(self, **flags: Any) -> api.reports.VerifyReport:
        return self._recorded(api.verify(scratch=self.scratch, quiet=True, **flags))

    def evaluate(self, **flags: Any) -> api.reports.EvaluateReport:
        return self._recorded(api.evaluate(scratch=self.scratch, quiet=True, **flags))

    def regress(self, **flags: Any) -> api.reports.RegressReport:
        return self._recorded(api.regress(scratch=self.scratch, **{"quiet": True, **flags}))

    def inspect(self, **flags: Any) -> Report:
        return self._recorded(api.inspect(scratch=self.scratch, **flags))

    @staticmethod
    def expect(report: Job) -> Job:
        """The report if it passed; else the test fails with its one-line diagnosis."""
        if not report.passed:
            pytest.fail(report.diagnosis, pytrace=False)
        return report

    def skip_unless_ready(self, target: str, sim: str = "qemu") -> None:
        """Skip (naming what is missing and the command that installs it) unless the
        session's scratch has what running on `target` under `sim` needs."""
        from orchestrator.setup.doctor import blocking_problems, collect_checks
        from orchestrator.targets import load_catalogue

        catalogue = load_catalogue()
        checks = collect_checks(scratch(self.scratch), catalogue)
        missing = [check for check in blocking_problems(checks, catalogue.target(target))
                   if check.category != "simulator"]
        missing += [check for check in checks if check.category == "simulator"
                    and check.name == sim and not check.ok]
        if missing:
            pytest.skip(f"{self.scratch} is not set up to run on {target} under {sim} "
                        f"(missing: {', '.join(check.name for check in missing)}); next: "
                        f"{missing[0].fix}")

    def _recorded(self, report: Job) -> Job:
        for name, value in report.numbers().items():
            self._record(f"ethosu.{name}", value)
        self._record("ethosu.diagnosis", report.diagnosis)
        return report


@pytest.fixture(scope="session")
def ethosu_scratch(pytestconfig: pytest.Config) -> Path:
    """The scratch every job of the session uses (products and builds are shared)."""
    chosen = (pytestconfig.getoption("ethosu_scratch")
              or pytestconfig.getini("ethosu_scratch") or None)
    if chosen:
        return scratch(os.path.join(pytestconfig.rootpath, chosen)).ensure().root
    return scratch().ensure().root


@pytest.fixture
def ethosu(ethosu_scratch: Path, request: pytest.FixtureRequest) -> Ethosu:
    """The API on the session's scratch (see Ethosu). The numbers go to the test's
    user_properties, which --junitxml writes as <property> elements (what record_property
    does, without its warning under junit_family xunit2, whose schema has no place for them:
    CI servers read them all the same)."""
    return Ethosu(ethosu_scratch, lambda name, value: request.node.user_properties.append(
        (name, value)))


@pytest.fixture
def ethosu_target() -> str:
    """Parametrized by @pytest.mark.ethosu(targets=[...]); alone it is a usage error."""
    pytest.fail("ethosu_target comes from @pytest.mark.ethosu(targets=[...]) on the test",
                pytrace=False)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("ethosu")
    if marker is None or "ethosu_target" not in metafunc.fixturenames:
        return
    targets = list(marker.kwargs.get("targets") or marker.args)
    metafunc.parametrize("ethosu_target", targets, ids=targets)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    if call.excinfo is not None and isinstance(call.excinfo.value, OrchestratorError):
        report.longrepr = f"error: {call.excinfo.value.message}"
    return report
