"""Every command shown in README.md and docs/ is checked: each `invoke` line names a task
that exists and only flags that task has (all of them, without running anything); the cheap
ones (listings, help, doctor) run on a fresh scratch; the ones that compile run under
`-m sweep`; those that need upstream sources, a simulator, an FVP or the network are
skipped with that reason. Relative links between the pages must resolve."""

from __future__ import annotations

import os
import re
import runpy
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PROGRAMS = ("invoke", "python", "python3", "pip", "ruff", "mypy", "cd")
CHEAP = ("targets", "doctor", "models", "toolsets", "products", "--list", "--help")
COMPILES = ("verify", "compile")   # seconds to minutes on a fresh scratch: -m sweep
NEEDS = {"run": "a simulator and the upstream sources (invoke setup)",
         "evaluate": "a simulator and the upstream sources (invoke setup)",
         "regress": "the matrix's simulators and sources",
         "regress-merge": "shard reports of an earlier regress",
         "setup": "the network or local archives, and it installs into the scratch",
         "build": "the toolchain and sources", "parse": "a runner log"}


def code_lines(page: Path) -> list[str]:
    """The command lines of a page's code blocks (indented or fenced, not Python code):
    continuation lines joined, `&&` chains split, comments dropped."""
    lines: list[str] = []
    fenced = False
    language = ""
    for raw in page.read_text(encoding="utf-8").splitlines():
        if raw.startswith("```"):
            fenced, language = not fenced, raw[3:].strip()
            continue
        if fenced and language not in ("python", "mermaid", "toml", "ini"):
            lines.append(raw.strip())
        elif not fenced and raw.startswith("    "):
            lines.append(raw.strip())
    joined: list[str] = []
    for line in lines:
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line
        else:
            joined.append(line)
    commands = []
    for line in joined:
        for part in line.split("&&"):
            part = re.split(r"\s{3,}", re.sub(r"\s+#.*$", "", part).strip())[0]   # notes
            if part.split(" ", 1)[0] in PROGRAMS:
                commands.append(part)
    return commands


def documented() -> list[tuple[str, str]]:
    return [(str(page.relative_to(ROOT)), command) for page in PAGES
            for command in code_lines(page)]


def invoke_commands() -> list[tuple[str, str]]:
    return [(page, command) for page, command in documented() if command.startswith("invoke ")]


def task_flags() -> dict[str, set[str]]:
    """invoke task name -> the flags it takes (its help names every parameter)."""
    script = runpy.run_path(str(ROOT / "scripts" / "command_reference.py"))
    found = {}
    for task in script["load_tasks"]():
        names = {"--" + name.replace("_", "-") for name in task.help}
        names |= {"--no-" + name[2:] for name in names}   # invoke's negation of on-switches
        found[task.name.replace("_", "-")] = names | {"--help"}
    return found


FLAGS = task_flags()


def words(command: str) -> list[str]:
    """The command's words, brackets of optional parts and alternatives removed."""
    return [word for word in shlex.split(command.replace("[", " ").replace("]", " "))
            if word != "|"]


@pytest.mark.parametrize(("page", "command"), invoke_commands())
def test_a_documented_invoke_command_names_a_task_and_its_flags(page, command):
    given = words(command)[1:]
    if given[0] in ("--list", "-l"):
        return
    if given[0] == "--help":
        assert given[1] in FLAGS, f"{page}: `{command}`: no task {given[1]}"
        return
    task = given[0]
    assert task in FLAGS, f"{page}: `{command}`: no task {task}"
    unknown = [word.split("=", 1)[0] for word in given[1:]
               if word.startswith("--") and word.split("=", 1)[0] not in FLAGS[task]]
    assert unknown == [], f"{page}: `{command}`: invoke {task} has no {unknown}"


def test_the_docs_show_the_three_jobs_and_the_cheap_checks():
    shown = {command for _, command in documented()}
    assert any(c.startswith("invoke run --target ethos-u85-128") for c in shown)
    assert any(c.startswith("invoke regress --matrix") for c in shown)
    assert any(c.startswith("invoke evaluate ") for c in shown)
    assert "invoke doctor" in shown and any(c.startswith("invoke verify") for c in shown)


def runnable() -> list[tuple[str, str]]:
    """The documented invoke commands without placeholders, each once."""
    seen: dict[str, str] = {}
    for page, command in invoke_commands():
        if not re.search(r"[<>\[\]|]|\.\.\.|\bM\b|\bT\b|,\.\.", command):
            seen.setdefault(command, page)
    return [(page, command) for command, page in seen.items()]


def _marks(command: str) -> list[pytest.MarkDecorator]:
    task = words(command)[1]
    if task in CHEAP:
        return []
    if task in COMPILES:
        return [pytest.mark.sweep]
    return [pytest.mark.skip(reason=f"needs {NEEDS.get(task, 'more than a fresh scratch')}")]


@pytest.mark.parametrize(("page", "command"), [
    pytest.param(page, command, marks=_marks(command), id=command) for page, command in runnable()])
def test_a_documented_command_runs_on_a_fresh_scratch(page, command, tmp_path):
    shown = subprocess.run([sys.executable, "-m", *words(command)], cwd=ROOT, text=True,
                           capture_output=True, timeout=900,
                           env={**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp_path / "scratch"),
                                "ETHOSU_ORCH_QUIET": "1"})
    allowed = (0, 1) if words(command)[1] == "doctor" else (0,)   # doctor: 1 = not ready
    assert shown.returncode in allowed, f"{page}: `{command}`:\n{shown.stderr[-2000:]}"
    assert "Traceback" not in shown.stderr and shown.stdout.strip()


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = [target for target in LINK.findall(page.read_text(encoding="utf-8"))
              if "://" not in target and not (page.parent / target).exists()]
    assert broken == []
