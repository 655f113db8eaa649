"""The toolset A/B report as JSON (toolsets.json), Markdown (toolsets.md) and one HTML file
(toolsets.html), written atomically into the run directory."""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from orchestrator.foundation.html_page import render_html
from orchestrator.foundation.jsonfile import write_json_atomic, write_text_atomic

AB_FILES = ("toolsets.json", "toolsets.md", "toolsets.html")
COLUMNS = ("cell", "compiled", "exact (own TOSA reference)", "bit-for-bit", "Vela cycles",
           "SRAM KiB", "delegation", "first difference")


WORDS: dict[str, dict[bool | None, str]] = {
    "compiled": {True: "yes", False: "no"},
    "exact": {True: "exact", False: "departs", None: "-"}}


def _pair(entry: dict[str, Any], key: str) -> str:
    words = WORDS[key]
    return f"{words[entry['a'][key]]} / {words[entry['b'][key]]}"


def _estimate(entry: dict[str, Any], name: str) -> str:
    found = entry.get("vela_estimates", {}).get(name)
    if not found:
        return "-"
    ratio = f" (x{found['ratio']})" if found["ratio"] is not None else ""
    return f"{found['a']} / {found['b']}{ratio}"


def _delegation(entry: dict[str, Any]) -> str:
    changes = entry.get("delegation_changes")
    if changes is None:
        return "-"
    if not changes:
        return "same"
    return "; ".join(f"{c['op']} NPU {c['npu'][0]}->{c['npu'][1]}, CPU {c['cpu'][0]}->"
                     f"{c['cpu'][1]}" for c in changes)


def _difference(entry: dict[str, Any]) -> str:
    found = entry.get("first_difference")
    if not found:
        return "-" if entry.get("outputs", {}).get("agree") is not False else "not located"
    where = (f"partition {found['partition']} operator {found['operator']} "
             if found.get("operator") is not None else "")
    return f"{where}{found.get('a')} / {found.get('b')}: {found['why']}"


def _agreement(entry: dict[str, Any]) -> str:
    outputs = entry.get("outputs")
    if outputs is None:
        return "-"
    return {True: "agree", False: "differ", None: "not compared"}[outputs["agree"]]


def rows(document: dict[str, Any]) -> list[list[str]]:
    return [[entry["key"], _pair(entry, "compiled"), _pair(entry, "exact"), _agreement(entry),
             _estimate(entry, "total_cycles"), _estimate(entry, "sram_used_kib"),
             _delegation(entry), _difference(entry)] for entry in document["cells"]]


def _errors(document: dict[str, Any]) -> list[str]:
    return [f"{entry['key']} [{entry[side]['toolset']}]: {entry[side]['error']}"
            for entry in document["cells"] for side in ("a", "b") if entry[side]["error"]]


def _title(document: dict[str, Any]) -> str:
    a, b = document["toolsets"]
    return f"Toolsets {a['name']} (A) vs {b['name']} (B), matrix {document['matrix']}"


def _stack(toolset: dict[str, Any]) -> str:
    packages = ", ".join(f"{name} {version}" for name, version in toolset["packages"].items())
    flags = f"; Vela flags {' '.join(toolset['vela_flags'])}" if toolset["vela_flags"] else ""
    return f"{toolset['name']}: {packages}{flags}"


def verdict(document: dict[str, Any]) -> str:
    """'6 cells: 6 agree bit for bit, 0 differ; exact 6/6 under A, 6/6 under B; Vela's
    cycle estimate changed in 2'."""
    cells = document["cells"]
    agree = sum(entry.get("outputs", {}).get("agree") is True for entry in cells)
    differ = sum(entry.get("outputs", {}).get("agree") is False for entry in cells)
    exact = [sum(entry[side]["exact"] is True for entry in cells) for side in ("a", "b")]
    moved = sum((entry.get("vela_estimates", {}).get("total_cycles") or {}).get("ratio")
                not in (None, 1.0) for entry in cells)
    delegation = sum(bool(entry.get("delegation_changes")) for entry in cells)
    return (f"{len(cells)} cells: {agree} agree bit for bit, {differ} differ; exact "
            f"{exact[0]}/{len(cells)} under A, {exact[1]}/{len(cells)} under B; Vela's cycle "
            f"estimate changed in {moved}, delegation in {delegation}")


def render_markdown(document: dict[str, Any]) -> str:
    a, b = document["toolsets"]
    lines = [f"# {_title(document)}", "", f"**{verdict(document)}**", "",
             f"- A = {_stack(a)}", f"- B = {_stack(b)}", "",
             "A / B in every column; ratios are B/A.", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"
              for row in rows(document)]
    for heading, items in (("Errors", _errors(document)),
                           ("Runtime lanes", document["runtime_lanes"])):
        if items:
            lines += ["", f"## {heading}", "", *(f"- {item}" for item in items)]
    return "\n".join(lines) + "\n"


def ab_html(document: dict[str, Any]) -> str:
    """The A/B comparison as one HTML page."""
    header = "".join(f"<th>{escape(column)}</th>" for column in COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>"
                   for row in rows(document))
    lists = "".join(f"<h2>{heading}</h2><ul>" + "".join(f"<li>{escape(item)}</li>"
                                                         for item in items) + "</ul>"
                    for heading, items in (("Errors", _errors(document)),
                                           ("Runtime lanes", document["runtime_lanes"]))
                    if items)
    stacks = "".join(f"<li>{side} = {escape(_stack(toolset))}</li>"
                     for side, toolset in zip("AB", document["toolsets"], strict=True))
    return render_html(_title(document),
                       f"<h1>{escape(_title(document))}</h1><p><b>{escape(verdict(document))}"
                       f"</b></p><ul>{stacks}</ul><p>A / B in every column; ratios are B/A.</p>"
                       f"<table><tr>{header}</tr>{body}</table>{lists}")


def write_ab_reports(run_dir: Path, document: dict[str, Any]) -> dict[str, Path]:
    """toolsets.json, toolsets.md and toolsets.html in the run directory."""
    run_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: run_dir / name for name in AB_FILES}
    write_json_atomic(paths["toolsets.json"], document)
    write_text_atomic(paths["toolsets.md"], render_markdown(document))
    write_text_atomic(paths["toolsets.html"], ab_html(document))
    return paths
