"""Environment faults where the tool writes: one line naming the path and the fix, exit 2,
never an OSError traceback (real file systems: a file where scratch should be, /dev/full)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.jsonfile import write_json_atomic

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("argv", [("run", "--target", "cortex-m55", "--app", "selftest"),
                                  ("build", "--target", "cortex-m55"),
                                  ("setup", "--only", "toolchain", "--offline")])
def test_scratch_under_a_file_is_one_line(argv, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file")
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(blocker / "scratch")}
    done = subprocess.run([sys.executable, "-m", "invoke", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert str(blocker / "scratch") in done.stderr
    assert "a file stands where a directory should be" in done.stderr


def test_full_disk_is_one_line_naming_the_path():
    with pytest.raises(OrchestratorError) as error, writing(Path("/dev/full")), \
            open("/dev/full", "w") as full:
        full.write("x" * 65536)
        full.flush()
    assert error.value.message.startswith("/dev/full cannot be written: no space left")
    assert "ETHOSU_ORCH_SCRATCH" in error.value.message


def test_json_into_a_file_path_is_one_line(tmp_path):
    blocker = tmp_path / "lock"
    blocker.write_text("a file")
    with pytest.raises(OrchestratorError, match="a file stands where a directory should be"):
        write_json_atomic(blocker / "setup-lock.json", {"a": 1})
