"""Every report HTML page (regress, toolset A/B, evaluate) is written by one render_html."""

from __future__ import annotations

from pathlib import Path

from orchestrator.foundation.html_page import render_html

REPO = Path(__file__).resolve().parents[2]


def test_the_page_escapes_its_title_and_keeps_the_body() -> None:
    page = render_html("a <b> & c", "<h1>x</h1>")
    assert page.startswith("<!doctype html>") and "<title>a &lt;b&gt; &amp; c</title>" in page
    assert "<h1>x</h1>" in page and page.endswith("</html>\n")


def test_no_other_module_writes_an_html_page_of_its_own() -> None:
    writers = sorted(str(p.relative_to(REPO)) for p in (REPO / "orchestrator").rglob("*.py")
                     if "<!doctype html>" in p.read_text().lower())
    assert writers == ["orchestrator/foundation/html_page.py"]
