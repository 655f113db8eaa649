"""Reports: JUnit validates against the common schema; Markdown and HTML say what failed;
matplotlib stays out of `import orchestrator` and draws on Agg."""

from __future__ import annotations

import base64
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from regress_replay import UNIT_MATRIX, replay_stages

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.regress.engine import EngineOptions, execute
from orchestrator.regress.plan.matrix import expand, load_matrix
from orchestrator.regress.report.document import RunHeader, build_document
from orchestrator.regress.report.html import report_html
from orchestrator.regress.report.junit import render_junit
from orchestrator.regress.report.markdown import render_markdown
from orchestrator.regress.report.plots import CYCLE_METRICS, MEMORY_METRICS
from orchestrator.regress.report.records import MatrixRef, RunOptions
from orchestrator.regress.report.writers import write_reports
from orchestrator.targets import load_catalogue

XSD = Path(__file__).parent / "fixtures" / "junit-common.xsd"


@pytest.fixture(scope="module")
def document(tmp_path_factory):
    """A report of the unit matrix with every kind of outcome (pass, xfail, skip, error)."""
    tmp = tmp_path_factory.mktemp("report")
    path = tmp / "unit.toml"
    path.write_text(UNIT_MATRIX)
    stages = replay_stages(failing_compiles={"mv2@ethos-u85-128": "Vela: op not supported"},
                           missing_sims={"fvp": "FVP_Corstone_SSE-300_Ethos-U55 is not "
                                                "installed; next: invoke setup"})
    cells = expand(load_matrix(path), load_catalogue())
    run = execute(cells, stages, EngineOptions("RUNX", tmp / "RUNX", jobs=2))
    header = RunHeader("RUNX", MatrixRef("unit", str(path)), None, "2026-11-22T10:00:00+00:00",
                       "2026-11-22T10:01:00+00:00", RunOptions(jobs=2))
    return build_document(run, header)


def test_junit_validates_against_the_common_schema(document):
    xmlschema = pytest.importorskip("xmlschema", reason="pip install -e .[test] for xmlschema")
    text = render_junit(document)
    xmlschema.XMLSchema(str(XSD)).validate(text)
    root = ET.fromstring(text)
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert len(cases) == len(document.cells) == 7
    failure = cases["mv2@ethos-u85-128/fast"].find("failure")
    assert failure.get("message") == "compile failed: Vela: op not supported"
    assert "log: " + str(Path(document.cells[-1].out_dir).parents[1] / "compile" /
                         "batch.log") in failure.text
    skipped = cases["add@ethos-u55-128/default"].find("skipped")
    assert skipped.get("message").startswith("FVP_Corstone_SSE-300_Ethos-U55 is not installed")
    assert cases["add@cortex-m55/default"].find("skipped").get("message").startswith("xfail: ")
    assert root.get("tests") == "7" and root.get("failures") == "1"


def test_schema_rejects_a_broken_report():
    xmlschema = pytest.importorskip("xmlschema", reason="pip install -e .[test] for xmlschema")
    schema = xmlschema.XMLSchema(str(XSD))
    assert not schema.is_valid("<testsuites><testsuite name='x'><testcase/></testsuite>"
                               "</testsuites>")


def test_markdown_lists_failures_first(document):
    text = render_markdown(document)
    assert text.startswith("## Regression `unit`: ❌ FAIL")
    attention = text.split("### Needs attention")[1].split("|")[0]
    assert "`mv2@ethos-u85-128/fast` **fail**: compile failed: Vela: op not supported" in attention
    assert "RUNX/compile/batch.log`)" in attention  # the log to read is named
    assert "| ⏭️ | `add@ethos-u55-128/default` | run | fvp-corstone-300-u55 |" in text


def test_html_is_one_file_with_png_plots(document):
    pytest.importorskip("matplotlib", reason="pip install -e .[report]")
    text = report_html(document)
    images = text.split("src='data:image/png;base64,")[1:]
    assert images, "the report has cycle and memory plots"
    for image in images:
        assert base64.b64decode(image.split("'")[0])[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<link" not in text and "<script" not in text
    assert "FAIL" in text and "compile failed: Vela: op not supported" in text


def test_importing_the_package_and_command_does_not_import_matplotlib():
    code = ("import sys, orchestrator, orchestrator.commands.regress;"
            "print('matplotlib' in sys.modules, 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


def test_a_full_disk_while_writing_a_report_is_one_line(document, tmp_path):
    """summary.md points at /dev/full: every write to it fails with ENOSPC."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "summary.md").symlink_to("/dev/full")
    with pytest.raises(OrchestratorError) as caught:
        write_reports(run_dir, document)
    assert caught.value.message.startswith(
        f"{run_dir / 'summary.md'} cannot be written: no space left on the device; next: ")
    assert (run_dir / "junit.xml").is_file() and (run_dir / "report.json").is_file()


RENDER = """
import json, sys
from pathlib import Path
from orchestrator.regress.report.document import load_report
from orchestrator.regress.report.html import report_html
html = report_html(load_report(Path(sys.argv[1])))
print(json.dumps({"matplotlib": "matplotlib" in sys.modules, "html": html}))
"""


def _render_fresh(document_path: Path, cache: Path) -> dict:
    """report_html in a fresh interpreter with its derived tables under `cache`."""
    import json
    import os

    env = {**os.environ, "ETHOSU_ORCH_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, "-c", RENDER, str(document_path)], env=env,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_an_unchanged_report_draws_its_plots_once(document, tmp_path):
    """The plots are kept by content: rendering the same report again in a new process
    imports no matplotlib and embeds the same PNGs; a changed metric is drawn again."""
    import copy
    import json

    pytest.importorskip("matplotlib", reason="pip install -e .[report]")
    path = tmp_path / "report.json"
    plain = document.to_json()
    path.write_text(json.dumps(plain))
    first = _render_fresh(path, tmp_path / "cache")
    again = _render_fresh(path, tmp_path / "cache")
    assert first["matplotlib"] and not again["matplotlib"]
    assert again["html"] == first["html"]
    changed = copy.deepcopy(plain)
    metrics = [name for cell in changed["cells"] for name in cell.get("metrics", {})
               if name in CYCLE_METRICS + MEMORY_METRICS]
    cell = next(cell for cell in changed["cells"] if metrics[0] in cell.get("metrics", {}))
    cell["metrics"][metrics[0]] *= 2
    path.write_text(json.dumps(changed))
    redrawn = _render_fresh(path, tmp_path / "cache")
    assert redrawn["matplotlib"] and redrawn["html"] != first["html"]


def test_the_report_says_which_cells_were_served_from_cache(document):
    served = document.served_from_cache
    cached = [cell.key for cell in document.cells if cell.cached and all(cell.cached.values())]
    assert served.cells == cached and served.total == len(document.cells)
    for stage, count in served.stages.items():
        assert count == sum(1 for cell in document.cells if cell.cached.get(stage))
    assert f"served from cache: {len(cached)}/7 cells" in render_markdown(document)
