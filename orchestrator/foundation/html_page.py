"""The one HTML page every report is written as: a self-contained file (no external files), its
title, the shared style and a body the report's own renderer gives."""

from __future__ import annotations

from html import escape

STYLE = """body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px}
th{background:#f4f4f4}td.num{text-align:right;font-family:monospace}
figure{display:inline-block;margin:0.5em}figcaption{font-size:12px;color:#555}
.verdict-pass{color:#080}.verdict-fail{color:#b00}code{font-size:12px}"""


def render_html(title: str, body: str) -> str:
    """One HTML file: `title` (plain text, escaped here) and `body` (HTML)."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>\n{body}\n</body></html>\n")
