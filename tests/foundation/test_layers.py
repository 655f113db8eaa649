"""Layers in one direction: every module imports only from its own layer or below, counting
function-local and TYPE_CHECKING imports too (read from the source, so nothing hides); no two
packages import each other, even within a layer; and every module imports cleanly."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "orchestrator"

# Bottom to top. A module belongs to the first layer with a prefix that matches it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("orchestrator.__init__", "orchestrator.foundation", "orchestrator.protocol",
                    "orchestrator.results", "orchestrator.targets", "orchestrator.comparison")),
    ("options", ("orchestrator.options",)),
    ("stages", ("orchestrator.setup", "orchestrator.toolsets", "orchestrator.aot",
                "orchestrator.parse", "orchestrator.tosa", "orchestrator.exact",
                "orchestrator.npu_model", "orchestrator.profile")),
    ("sim", ("orchestrator.sim",)),
    ("firmware", ("orchestrator.firmware",)),
    ("runner", ("orchestrator.runner",)),
    ("evaluate", ("orchestrator.evaluate", "orchestrator.artifacts")),
    ("apps", ("orchestrator.apps",)),
    ("regress", ("orchestrator.regress",)),
    ("api", ("orchestrator.api",)),
    ("commands", ("orchestrator.commands",)),
    ("tasks", ("orchestrator.commands.task_options", "orchestrator.__main__",
               "orchestrator.pytest_plugin",
               "orchestrator.pytest_fixtures")),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list[str]:
    return sorted(module_name(path) for path in PACKAGE.rglob("*.py"))


def layer_of(module: str) -> int:
    if module == "orchestrator":
        module = "orchestrator.__init__"     # the package itself: __version__ only
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    raise AssertionError(f"{module} is in no layer: add it to LAYERS")


def imported(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every orchestrator import in the file, wherever it is."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            target = next((n for n in reversed(names) if _is_module(n)), node.module)
            found.append((node.lineno, target))
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "orchestrator"]


def _is_module(name: str) -> bool:
    relative = Path(*name.split("."))
    return (ROOT / relative).with_suffix(".py").is_file() or (ROOT / relative).is_dir()


def test_no_module_imports_from_a_layer_above_it():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = module_name(path)
        for line, target in imported(path):
            if layer_of(target) > layer_of(source):
                upward.append(f"{path.relative_to(ROOT)}:{line} {source} "
                              f"({LAYERS[layer_of(source)][0]}) imports {target} "
                              f"({LAYERS[layer_of(target)][0]})")
    assert upward == []


def package_of(module: str) -> str:
    """orchestrator.runner.judge -> orchestrator.runner; a top-level module is its own."""
    return ".".join(module.split(".")[:2])


def package_imports() -> dict[str, set[str]]:
    """package -> the other packages its modules import (function-local imports too)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        source = package_of(module_name(path))
        targets = {package_of(target) for _, target in imported(path)}
        graph.setdefault(source, set()).update(targets - {source})
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: each set of packages that reach each other (more than one)."""
    reach = {node: _reachable(graph, node) for node in graph}
    found = {tuple(sorted(n for n in reach if n in reach[node] and node in reach[n]))
             for node in graph if node in reach[node]}
    return sorted(list(circle) for circle in found)


def _reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(graph.get(start, ()))
    while todo:
        node = todo.pop()
        if node not in seen:
            seen.add(node)
            todo.extend(graph.get(node, ()))
    return seen


def test_no_two_packages_import_each_other():
    assert circles(package_imports()) == []


def test_a_circle_is_found():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


@pytest.mark.parametrize("module", modules())
def test_every_module_imports(module):
    importlib.import_module(module)


def test_every_task_calls_a_command_of_the_top_layer():
    """tasks.py stays thin: each task names one `orchestrator.commands.<task>:<name>_command`
    (printing lives there; the layers below return data)."""
    tree = ast.parse((ROOT / "tasks.py").read_text())
    references = [node.args[0].value for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "options_task"
                  and isinstance(node.args[0], ast.Constant)]
    assert references, "tasks.py defines no options_task"
    outside = [ref for ref in references if not (ref.startswith("orchestrator.commands.")
                                                 and ref.endswith("_command"))]
    assert outside == []
