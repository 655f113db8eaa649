"""The pytest plugin, run by pytester on the example user repository (examples/pytest-user):
off unless asked for; the marker gives one test per target; verify passes anywhere, the QEMU
run skips naming what is missing (and passes with the sources); a failing report and an
OrchestratorError are reported as the tool's one line; the numbers land in the JUnit XML."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "pytest-user"
# The plugin by module name; its entry point (name "ethosu", present when the package is
# installed) is blocked so the two do not register the same module twice.
PLUGIN_MODULE = "orchestrator.pytest_plugin"
PLUGIN = ("-p", "no:ethosu", "-p", PLUGIN_MODULE)


def copy_example(pytester: pytest.Pytester) -> None:
    for name in ("model.py", "test_model.py", "pytest.ini"):
        shutil.copy(EXAMPLE / name, pytester.path / name)


def properties(junit: Path) -> dict[str, dict[str, str]]:
    """test name -> its JUnit properties."""
    found = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        found[case.get("name", "")] = {p.get("name", ""): p.get("value", "")
                                       for p in case.iter("property")}
    return found


def test_the_plugin_is_off_unless_asked_for(pytester: pytest.Pytester):
    pytester.makepyfile("def test_it(ethosu):\n    pass\n")
    result = pytester.runpytest(*PLUGIN)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*fixture 'ethosu' not found*"])


def test_a_failing_report_and_an_error_print_the_one_line(pytester: pytest.Pytester, tmp_path):
    pytester.makepyfile('''
        import pytest
        from orchestrator.api.reports import RegressReport

        FAILED = {"verdict": "fail", "counts": {"pass": 1, "fail": 1, "total": 2},
                  "cells": [{"key": "add/ethos-u85-128/default", "outcome": "fail",
                             "reason": "output 0 differs"}]}

        def test_failing_report(ethosu):
            ethosu.expect(RegressReport(FAILED))

        def test_user_error(ethosu):
            ethosu.compile(modle="add")

        @pytest.mark.ethosu(targets=["ethos-u55-128", "ethos-u85-128"])
        def test_targets(ethosu_target):
            assert ethosu_target.startswith("ethos-u")

        def test_target_without_marker(ethosu_target):
            pass
    ''')
    result = pytester.runpytest(*PLUGIN, "--ethosu", f"--ethosu-scratch={tmp_path}", "-v")
    result.assert_outcomes(passed=2, failed=2, errors=1)
    result.stdout.fnmatch_lines([
        "*test_targets?ethos-u55-128? PASSED*", "*test_targets?ethos-u85-128? PASSED*",
        "*ethosu_target comes from @pytest.mark.ethosu(targets=?...?) on the test*",
        "*regress fail: pass 1, fail 1; first: add/ethos-u85-128/default fail: "
        "output 0 differs",
        "error: compile(): modle is not an option (known: *); next: invoke compile --help*"])
    assert "Traceback" not in result.stdout.str()


@pytest.mark.slow
def test_the_example_verifies_on_both_targets_and_skips_qemu_unset_up(
        pytester: pytest.Pytester, tmp_path):
    copy_example(pytester)
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest(*PLUGIN, f"--ethosu-scratch={tmp_path / 'scratch'}",
                                f"--junitxml={junit}", "-rs")
    result.assert_outcomes(passed=2, skipped=2)
    result.stdout.fnmatch_lines(["*is not set up to run on ethos-u55-128 under qemu "
                                 "(missing: *); next: *"])
    found = properties(junit)
    verified = found["test_npu_partitions_are_bit_exact[ethos-u85-128]"]
    assert verified["ethosu.differing"] == "0" and int(verified["ethosu.checks"]) > 0
    assert verified["ethosu.diagnosis"].endswith("model.py on Ethos-U85-128: exact")


@pytest.mark.slow
@pytest.mark.needs_sources
def test_the_example_runs_on_qemu_with_the_sources(pytester: pytest.Pytester, sourced_scratch,
                                                   tmp_path):
    copy_example(pytester)
    junit = tmp_path / "junit.xml"
    result = pytester.runpytest(*PLUGIN, f"--ethosu-scratch={sourced_scratch}",
                                f"--junitxml={junit}")
    result.assert_outcomes(passed=4)
    ran = properties(junit)["test_runs_on_qemu_bit_exact[ethos-u55-128]"]
    assert ran["ethosu.mismatches"] == "0"
    assert ran["ethosu.npu.executor"] == "npu-model"


def test_the_entry_point_names_the_plugin_module():
    """pyproject.toml registers it; where this checkout is the installed one, so does the
    installed metadata (pytest loads it from there)."""
    import importlib.metadata

    root = EXAMPLE.parents[1]
    declared = re.search(r"\[project.entry-points.pytest11\]\n(.*)\n",
                         (root / "pyproject.toml").read_text())
    assert declared is not None and declared[1] == f'ethosu = "{PLUGIN_MODULE}"'
    assert hasattr(importlib.import_module(PLUGIN_MODULE), "pytest_addoption")
    installed = importlib.metadata.distribution("ethosu-orchestrator")
    origin = json.loads(installed.read_text("direct_url.json") or "{}").get("url", "")
    if origin == root.as_uri():
        points = installed.entry_points.select(group="pytest11")
        assert [(p.name, p.value) for p in points] == [("ethosu", PLUGIN_MODULE)]
