"""orchestrator.parse exports the console-log parser lazily (PEP 562, for the warm run): each
exported name resolves to the object its module defines, whichever was imported first."""

from __future__ import annotations

import importlib
import subprocess
import sys

import orchestrator.parse as parse
from orchestrator.foundation.paths import repo_root


def test_every_exported_name_resolves_to_its_definition() -> None:
    assert set(parse._HOMES) <= set(parse.__all__)
    for name in parse.__all__:
        home = parse._HOMES.get(name) or getattr(parse, name).__module__.rsplit(".", 1)[1]
        module = importlib.import_module(f"orchestrator.parse.{home}")
        assert getattr(parse, name) is getattr(module, name), name


def test_a_submodule_imported_first_does_not_shadow_an_exported_name() -> None:
    code = ("import orchestrator.parse.classify, orchestrator.parse.result; "
            "from orchestrator.parse import classify, result_from_facts; "
            "print(callable(classify) and callable(result_from_facts))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=repo_root(), timeout=120, check=True)
    assert done.stdout.strip() == "True"
