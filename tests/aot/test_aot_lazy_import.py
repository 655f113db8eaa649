"""Importing the package, listing tasks and the cache-key path must not import torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LIGHT_MODULES = ("orchestrator", "orchestrator.aot", "orchestrator.commands.compile",
                 "orchestrator.aot.api", "orchestrator.aot.options", "orchestrator.aot.key",
                 "orchestrator.aot.vela.report", "orchestrator.aot.products",
                 "orchestrator.aot.assembly.program_info", "orchestrator.aot.lower.kernels",
                 "orchestrator.aot.tensors", "orchestrator.aot.models.sources",
                 "orchestrator.aot.vela_direct", "orchestrator.evaluate.host_references",
                 "tasks")


def heavy_modules_after(code: str) -> list[str]:
    """Run `code` in a fresh interpreter; return which heavy packages it imported."""
    probe = (f"{code}\nimport sys\n"
             "print('HEAVY=' + ','.join(m for m in ('torch', 'executorch', 'torchao', 'numpy') "
             "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True,
                          text=True, check=True)
    marker = [line for line in done.stdout.splitlines() if line.startswith("HEAVY=")][-1]
    return [name for name in marker.removeprefix("HEAVY=").split(",") if name]


def test_importing_the_non_compile_modules_does_not_import_torch() -> None:
    imports = "\n".join(f"import {name}" for name in LIGHT_MODULES)
    assert heavy_modules_after(imports) == []


def test_making_a_request_and_its_key_does_not_import_torch() -> None:
    code = ("from orchestrator.aot import request_for\n"
            "request = request_for('convnet', 'ethos-u55-128')\n"
            "assert request.key().startswith('convnet_ethos-u55-128_int8_npu_')")
    assert heavy_modules_after(code) == []


def test_invoke_list_does_not_import_torch() -> None:
    code = ("from invoke import Collection, Program\n"
            "import tasks\n"
            "Program(namespace=Collection.from_module(tasks)).run(['inv', '--list'], exit=False)")
    assert heavy_modules_after(code) == []
