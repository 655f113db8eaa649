"""Every command shown in README.md and docs/ is checked: each `invoke` line names a task
that exists and only flags that task has (all of them, without running anything), and each
one without placeholders runs on a fresh scratch of this session. The listings, help,
doctor and the compiles and verifies of small models run in every CI run; the runs, builds,
evaluations and regressions run when $ETHOSU_ORCH_TEST_SOURCES gives the upstream sources
(on a scratch set up with them, as a user sets one up) and skip with that reason otherwise;
those that take minutes run under `-m sweep`; those that need an FVP, the network, an
installed toolset or a running cluster skip with that reason. Relative links between the
pages must resolve."""

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
COMPILES = ("verify", "compile")   # need only the pip install: run here on small models
SMALL_MODELS = ("convnet", "add")
SOURCED = ("run", "evaluate", "regress", "build", "isa-check")   # run with upstream sources
SKIPPED = {"setup": "the network or local archives, and it installs into the scratch",
           "regress-merge": "shard reports of an earlier regress",
           "parse": "a runner log"}
HEAVY = ("--quantize", "--filter", "ethos-u85-*", "--workers")   # minutes: -m sweep


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
        if not re.search(r"[<>\[\]|]|\.\.\.|\bM\b|\bT\b|,\.\.|path/to/", command):
            seen.setdefault(command, page)
    return [(page, command) for command, page in seen.items()]


def _marks(command: str) -> list[pytest.MarkDecorator]:
    """How a documented command is checked here: run on a fresh scratch of this session (the
    cheap ones and small compiles in every CI run; with upstream sources given, the runs,
    builds, evaluations and regressions too), under `-m sweep` when it takes minutes, or
    skipped with the one-line reason it cannot run here."""
    given = words(command)[1:]
    task = given[0]
    reason = _cannot_run(given)
    if reason:
        return [pytest.mark.skip(reason=f"needs {reason}")]
    if task in CHEAP or given[-1] == "--coverage":
        return []
    slow = task == "isa-check" or any(flag in given for flag in HEAVY) or (
        task in COMPILES and "--model" in given
        and given[given.index("--model") + 1] not in SMALL_MODELS)
    return [pytest.mark.sweep] if slow else [pytest.mark.slow]


def _cannot_run(given: list[str]) -> str | None:
    """Why a documented command cannot run in a test, or None."""
    task = given[0]
    if task in SKIPPED:
        return SKIPPED[task]
    if "--toolset" in given or "--toolsets" in given:
        return "the toolset installed (invoke setup --toolsets: the network)"
    if "--pte" in given or any(word.endswith((".pte", ".bpte")) for word in given):
        return "an artifact file of the reader's own (.pte/.bpte), which the docs do not make"
    if "--update-baselines" in given:
        return "to rewrite the checkout's baselines, which a test must not"
    if task in ("run", "evaluate") and "qemu" not in given:
        return "a Corstone FVP (invoke setup --accept-eula)"
    if task == "regress" and "--scheduler" in given:
        return "a running Dask scheduler"
    return None


@pytest.fixture(scope="session")
def docs_scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One fresh scratch for every documented command that needs no upstream sources."""
    return tmp_path_factory.mktemp("docs-scratch")


def _in_scratch(command_words: list[str], scratch: Path) -> list[str]:
    """The command with the docs' `scratch/...` paths in this test's scratch."""
    return [str(scratch / word.split("/", 1)[1]) if word.startswith("scratch/") else word
            for word in command_words]


def _documented_run(command_words: list[str], scratch: Path) -> subprocess.CompletedProcess[str]:
    """`invoke ...` as `<this python> -m invoke ...`, `python ...` as `<this python> ...`."""
    program, *rest = _in_scratch(command_words, scratch)
    line = [sys.executable, *rest] if program.startswith("python") else [
        sys.executable, "-m", program, *rest]
    return subprocess.run(line, cwd=ROOT, text=True, capture_output=True, timeout=1800,
                          env={**os.environ, "ETHOSU_ORCH_SCRATCH": str(scratch),
                               "ETHOSU_ORCH_QUIET": "1"})


def _prepared(command: str, scratch: Path) -> None:
    """What the docs run before a command: the python commands that write its data."""
    for _page, earlier in documented():
        made = [word for word in words(earlier) if word.startswith("scratch/")]
        if earlier.startswith("python ") and made and made[0] in words(command):
            if not (scratch / made[0].split("/", 1)[1]).exists():
                shown = _documented_run(words(earlier), scratch)
                assert shown.returncode == 0, f"`{earlier}`:\n{shown.stderr[-2000:]}"


@pytest.mark.parametrize(("page", "command"), [
    pytest.param(page, command, marks=_marks(command), id=command) for page, command in runnable()])
def test_a_documented_command_runs_on_a_fresh_scratch(page, command, request):
    scratch = (request.getfixturevalue("sourced_scratch") if words(command)[1] in SOURCED
               else request.getfixturevalue("docs_scratch"))
    _prepared(command, scratch)
    shown = _documented_run(words(command), scratch)
    allowed = (0, 1) if words(command)[1] in ("doctor", "regress") else (0,)
    assert shown.returncode in allowed, f"{page}: `{command}`:\n{shown.stderr[-2000:]}"
    assert "Traceback" not in shown.stderr and shown.stdout.strip()


@pytest.mark.parametrize(("page", "command"), [
    pytest.param(page, command, id=command) for page, command in documented()
    if command.startswith("python examples/")])
def test_a_documented_example_script_runs_on_a_fresh_scratch(page, command, docs_scratch):
    """The example scripts the docs show (the digits data set) write what they say."""
    shown = _documented_run(words(command), docs_scratch)
    assert shown.returncode == 0, f"{page}: `{command}`:\n{shown.stderr[-2000:]}"
    written = next(word for word in words(command) if word.startswith("scratch/"))
    assert (docs_scratch / written.split("/", 1)[1] / "labels.txt").is_file()
    assert "invoke evaluate" in shown.stdout


LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    broken = [target for target in LINK.findall(page.read_text(encoding="utf-8"))
              if "://" not in target and not (page.parent / target).exists()]
    assert broken == []
