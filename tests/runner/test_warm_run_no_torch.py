"""A warm `invoke run` (product, runtime and runner cached) needs no torch: run in a fresh
interpreter, it imports no torch, executorch or tosa module, nor numpy (its passing output
check of the same outputs is read back by content, orchestrator.runner.checked_outputs), nor
jinja2, rich, tarfile or importlib.metadata; the invoke-free entry (`python -m orchestrator
run`) imports no invoke either. The modules of the warm path are checked without sources (a
fresh interpreter importing them);
the whole warm run with sources (a real compile, runner build and QEMU run first; skips
without)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import Scratch, repo_root

HEAVY = ("torch", "executorch", "tosa", "tosa_tools", "torchvision", "torchaudio", "numpy",
         "matplotlib", "jinja2", "rich", "pandas", "scipy", "PIL", "flatbuffers", "ethosu",
         "tarfile", "importlib.metadata")
# what a warm run reads from kept tables or needs only off the warm path (issue 44: each
# costs import time on every run): the TOML parser (parses are kept by content), uuid and
# platform (their imports compile regexes), the setup stage's fetch machinery (a warm run
# reads the lock), the FVP probe, the sample session of --inputs, the ELF/map readers and
# linker-error patterns (an unchanged image's tables are kept), an NPU device's AXI settings,
# the console-log parser and the FVP run module (a QEMU run reads the protocol stream), the
# model catalogue (a built-in model), the TOSA partition reader, the console-line rules (a
# protocol stream needs none), the other jobs' reports, the data set options and the ninja
# package (its binary is found without it)
WARM_SKIPS = ("tomllib", "uuid", "platform", "orchestrator.setup.context",
              "orchestrator.setup.options", "orchestrator.setup.download",
              "orchestrator.setup.probe", "orchestrator.runner.sample_session",
              "orchestrator.evaluate", "orchestrator.firmware.build.elf",
              "orchestrator.firmware.build.mapfile", "orchestrator.firmware.build.linker",
              "orchestrator.targets.npu_axi", "orchestrator.parse.upstream",
              "orchestrator.parse.result", "orchestrator.parse.simulator",
              "orchestrator.sim.fvp_run", "orchestrator.aot.models.catalogue",
              "orchestrator.api.reports", "orchestrator.options.evaluate", "ninja",
              "orchestrator.tosa.partitions", "orchestrator.parse.lines",
              "orchestrator.setup.catalogue", "orchestrator.setup.state",
              "orchestrator.parse.fvp_stops")
# what the invoke-free entry (`python -m orchestrator run`) exists to skip: invoke and what
# its import pulls in
INVOKE_START = ("invoke", "yaml", "unittest", "asyncio")
WARM_PATH = ("orchestrator.commands.run", "orchestrator.apps.model",
             "orchestrator.runner.model_run", "orchestrator.runner.write_checks",
             "orchestrator.aot.api", "orchestrator.runner.kernel_set")
REPORT = """
import json, sys
{body}
print(json.dumps(sorted(name for name in {heavy!r} if name in sys.modules)))
"""
WARM_RUN = """
from pathlib import Path
from orchestrator.api.run_job import execute
from orchestrator.commands.run import RunnerSettings, RunRequest
from orchestrator.foundation.paths import scratch
sources = {{name: Path(path) for name, path in {sources!r}.items()}}
result = execute(RunRequest(target="ethos-u55-128", app="runner", sim="qemu", model="add",
                            timeout_s=300.0, idle_timeout_s=120.0,
                            runner=RunnerSettings(sources=sources)), scratch({root!r}))
print(result.status.value, result.reason, file=sys.stderr)
assert result.status.value == "pass", result.reason
"""


def _heavy_modules(body: str, heavy: tuple[str, ...] = HEAVY) -> list[str]:
    """The `heavy` modules a fresh interpreter ran `body` with had imported."""
    env = {**os.environ, "PYTHONPATH": str(repo_root())}
    done = subprocess.run([sys.executable, "-c", REPORT.format(body=body, heavy=heavy)],
                          capture_output=True, text=True, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_the_warm_path_modules_import_no_torch() -> None:
    assert _heavy_modules("\n".join(f"import {name}" for name in WARM_PATH),
                          HEAVY + WARM_SKIPS) == []


def test_the_invoke_free_entry_imports_neither_invoke_nor_heavy_modules() -> None:
    body = ("import orchestrator.commands.direct\nimport orchestrator.commands.run\n"
            "import orchestrator.api.run_job")
    assert _heavy_modules(body, HEAVY + INVOKE_START) == []


@pytest.mark.parametrize(("flags", "expected"), [((), False), (("-B",), True)])
def test_imports_after_invoke_starts_write_the_bytecode_cache(
        flags: tuple[str, ...], expected: bool) -> None:
    """invoke turns the bytecode cache off before it loads tasks.py; the commands package
    turns it back to what the interpreter was started with (off under -B)."""
    code = ("import sys; sys.dont_write_bytecode = True; import orchestrator.commands; "
            "print(sys.dont_write_bytecode)")
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run([sys.executable, *flags, "-c", code], capture_output=True, text=True,
                          env={**env, "PYTHONPATH": str(repo_root())}, timeout=120, check=True)
    assert done.stdout.strip() == str(expected)


@pytest.mark.slow
@pytest.mark.needs_sources
def test_a_warm_run_in_a_fresh_interpreter_imports_no_torch(
        runner_scratch: Scratch, runtime_sources: dict[str, Any]) -> None:
    cold = execute(RunRequest(target="ethos-u55-128", app="runner", sim="qemu", model="add",
                              timeout_s=300.0, idle_timeout_s=120.0,
                              runner=RunnerSettings(sources=runtime_sources)), runner_scratch)
    assert cold.status.value == "pass", cold.reason
    sources = {name: str(path) for name, path in runtime_sources.items() if path is not None}
    body = WARM_RUN.format(sources=sources, root=str(Path(runner_scratch.root)))
    assert _heavy_modules(body, HEAVY + WARM_SKIPS) == []
