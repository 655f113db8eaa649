"""The pytest plugin (entry point `pytest11: ethosu`): off unless asked for with `--ethosu`
or `ethosu = true` in the ini file. Then a test gets

- `ethosu`: the API (orchestrator.api) on one session-wide scratch, so every test shares the
  compiled products and runtime builds; each report's numbers become JUnit properties
  (`ethosu.<name>`) and `ethosu.expect(report)` fails with the tool's one-line diagnosis
  (the first departing NPU operation, the write finding, the verdict, the next step);
- `@pytest.mark.ethosu(targets=[...])` with the `ethosu_target` fixture: the test once per
  target;
- `ethosu.skip_unless_ready(target, sim="qemu")`: a skip naming what `invoke setup` has not
  installed yet, instead of a failure;
- an OrchestratorError escaping a test is reported as its one line, not a traceback.

The scratch: `--ethosu-scratch=DIR` (with the `=`), else `ethosu_scratch` in the ini, else
the CLI's
($ETHOSU_ORCH_SCRATCH, else the checkout's scratch/, where `invoke setup` installed things).
"""

from __future__ import annotations

import pytest

FIXTURES = "orchestrator.pytest_fixtures"   # what --ethosu switches on
MARKER = ("ethosu(targets=[...]): run the test once per catalogue target, given to it as the "
          "ethosu_target fixture")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ethosu", "ethosu-orchestrator")
    group.addoption("--ethosu", action="store_true", default=False,
                    help="enable the ethosu-orchestrator fixtures (ethosu, ethosu_target)")
    group.addoption("--ethosu-scratch", metavar="DIR", default=None,
                    help="scratch directory shared by the session's jobs (default: the CLI's)")
    parser.addini("ethosu", type="bool", default=False,
                  help="enable the ethosu-orchestrator fixtures")
    parser.addini("ethosu_scratch", default="", help="the session's scratch directory")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
    asked = config.getoption("ethosu") or config.getini("ethosu")
    if asked and not config.pluginmanager.has_plugin(FIXTURES):
        config.pluginmanager.import_plugin(FIXTURES)
