"""The interpreter recorded in build options (NPU_MODEL_PYTHON, the host library key) is one
spelling of one file: `invoke run` starts bin/python3 (invoke's shebang) and
`python -m orchestrator run` bin/python; recorded as sys.executable, the two rebuilt each
other's runner on every alternation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SPELLINGS = [Path(sys.executable).with_name(name) for name in ("python", "python3")]
ASK = ("from orchestrator.foundation.hosttools import python_interpreter; "
       "print(python_interpreter())")


def _interpreter_seen_by(executable: Path) -> str:
    return subprocess.run([str(executable), "-c", ASK], capture_output=True, text=True,
                          check=True, cwd=Path(__file__).parents[2]).stdout.strip()


@pytest.mark.skipif(not all(p.exists() for p in SPELLINGS),
                    reason="this environment has no python and python3 side by side")
def test_python_and_python3_of_one_environment_are_recorded_alike() -> None:
    seen = {_interpreter_seen_by(spelling) for spelling in SPELLINGS}
    assert len(seen) == 1, seen
    assert Path(seen.pop()).samefile(sys.executable)


def test_an_interpreter_without_a_sibling_spelling_is_recorded_as_started(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from orchestrator.foundation import hosttools

    lone = tmp_path / "python3.11"
    lone.write_bytes(b"")
    monkeypatch.setattr(hosttools.sys, "executable", str(lone))
    assert hosttools.python_interpreter() == str(lone)
