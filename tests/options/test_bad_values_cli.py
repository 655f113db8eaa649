"""Malformed flag values through the real CLI: one line on stderr, no traceback, exit 2,
before anything is downloaded, built or run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = [
    (("run", "--target", "cortex-m55", "--timeout", "abc"), "--timeout abc is not a number"),
    (("run", "--target", "cortex-m55", "--idle-timeout", "-1"), "--idle-timeout must be"),
    (("run", "--target", "cortex-m55", "--atol", "x"), "--atol x is not a number"),
    (("run", "--target", "cortex-m55", "--method-pool", "lots"), "--method-pool lots is not"),
    (("setup", "--archive", "toolchian=/nowhere.tar.xz"), "--archive names toolchian"),
    (("setup", "--fvp-dir", "fvp-corstone-999=/x"), "--fvp-dir names fvp-corstone-999"),
    (("setup", "--mirror", "notaurl"), "mirror 'notaurl' is not an http(s) URL"),
    (("setup", "--archive", "toolchain"), "--archive expects NAME=VALUE"),
]


@pytest.mark.parametrize(("argv", "message"), CASES)
def test_bad_value_is_one_line_and_exit_2(argv, message, tmp_path):
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp_path / "scratch")}
    env.pop("ETHOSU_ORCH_MIRROR", None)
    done = subprocess.run([sys.executable, "-m", "invoke", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert not (tmp_path / "scratch" / "downloads").exists()
