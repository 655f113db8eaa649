"""A Vela flag is checked where it enters: `invoke compile`/`invoke run`/a matrix with a flag
Vela rejects is one sentence naming the flag, before anything compiles (Vela's own parser used
to exit the process with status 2 and no message); a third-party step that still tries to end
the process during a compile becomes one sentence with the next step."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.aot.api import request_for
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import repo_root
from orchestrator.options.compile import CompileChoices

TARGET = "ethos-u55-128"


@pytest.mark.parametrize("flags, problem", [
    ("--bogus-flag", "unrecognized arguments: --bogus-flag"),
    ("--optimise Sideways", "--optimise does not take the value 'Sideways'"),
    ("--optimise=Sideways", "--optimise does not take the value 'Sideways'"),
    ("--arena-cache-size=abc", "argument --arena-cache-size: invalid int value: 'abc'"),
])
def test_rejected_flag_is_one_sentence_naming_it(flags, problem):
    with pytest.raises(OrchestratorError) as caught:
        request_for("add", TARGET, CompileChoices(vela_flags=flags))
    message = caught.value.message
    assert message.startswith(f"Vela rejects --vela-flags '{flags}': {problem}; next: ")
    assert "\n" not in message


def test_accepted_flags_pass_through():
    options = request_for("add", TARGET, CompileChoices(vela_flags="--optimise Size")).options
    assert options.vela_flags == ("--optimise", "Size")


def test_invoke_compile_with_a_bogus_flag_says_why(tmp_path):
    env = {"ETHOSU_ORCH_SCRATCH": str(tmp_path / "scratch"), "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "invoke", "compile", "--model", "add",
                           "--target", TARGET, "--vela-flags=--bogus-flag"],
                          cwd=repo_root(), capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2, done.stderr   # the tool's one-line error, not Vela's exit
    assert done.stderr.count("\n") == 1
    assert "Vela rejects --vela-flags '--bogus-flag': unrecognized arguments" in done.stderr
    assert not (tmp_path / "scratch" / "models").exists() or not any(
        (tmp_path / "scratch" / "models").iterdir())


@pytest.mark.slow
def test_a_compile_step_that_exits_the_process_is_one_sentence(tmp_path):
    from orchestrator.aot.api import compile_request
    from orchestrator.foundation.paths import scratch

    model = tmp_path / "exits.py"
    model.write_text("import sys\nsys.exit(3)\n")
    work = scratch(tmp_path / "scratch").ensure()
    with pytest.raises(OrchestratorError) as caught:
        compile_request(request_for(str(model), "cortex-m55"), work)
    message = caught.value.message
    assert "tried to exit the process (status 3" in message and "full log: " in message
    assert "\n" not in message
    assert not [p for p in Path(work.models).iterdir() if p.is_dir()]
