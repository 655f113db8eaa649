"""Malformed flag values through the real CLI, for every task that takes a value (targets
has only --json): one line on stderr, no traceback, exit 2, before anything is downloaded,
built or run. Flag types: numbers, positive numbers, i/N, names from a catalogue or the pins,
NAME=VALUE pairs, NAME[,NAME] lists, URLs, files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MATRIX = "examples/regress/qemu.toml"

CASES = [
    (("run", "--target", "cortex-m55", "--timeout", "abc"), "--timeout abc is not a number"),
    (("run", "--target", "cortex-m55", "--idle-timeout", "-1"), "--idle-timeout must be"),
    (("run", "--target", "cortex-m55", "--atol", "x"), "--atol x is not a number"),
    (("run", "--target", "cortex-m55", "--method-pool", "lots"), "--method-pool lots is not"),
    (("setup", "--archive", "toolchian=/nowhere.tar.xz"), "--archive names toolchian"),
    (("setup", "--fvp-dir", "fvp-corstone-999=/x"), "--fvp-dir names fvp-corstone-999"),
    (("setup", "--mirror", "notaurl"), "mirror 'notaurl' is not an http(s) URL"),
    (("setup", "--archive", "toolchain"), "--archive expects NAME=VALUE"),
    (("setup", "--only", "toolchain", "--force", "toolchian"), "--force names toolchian"),
    (("setup", "--only", "nosuch"), "--only does not know nosuch"),
    (("setup", "--toolchain-provider", "gnu"), "unknown toolchain provider 'gnu'"),
    (("setup", "--targets", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("run", "--target", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("run", "--target", "cortex-m55", "--app", "nosuch"), "unknown app 'nosuch'"),
    (("run", "--target", "cortex-m55", "--timeout=-5"), "--timeout must be positive"),
    (("build", "--target", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("build", "--target", "cortex-m55", "--build-type", "fast"), "unknown build type 'fast'"),
    (("build", "--target", "cortex-m55", "--option", "NOEQUALS"), "'NOEQUALS' is not NAME=value"),
    (("build", "--target", "cortex-m55", "--app", "nosuch"), "unknown app 'nosuch'"),
    (("compile", "--target", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("compile", "--model", "nosuch", "--target", "cortex-m55"), "unknown model 'nosuch'"),
    (("compile", "--quantize", "int4"), "unknown quantization 'int4'"),
    (("compile", "--memory-mode", "bogus"), "memory_mode 'bogus' is not valid"),
    (("compile", "--model", "add", "--inputs", "{tmp}/none.pt"), "none.pt does not exist"),
    (("parse", "{tmp}/none.log"), "none.log does not exist"),
    (("parse", "{tmp}/binary.log"), "binary.log is not a text log"),
    (("parse", "{tmp}/binary.log", "--target", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("doctor", "--target", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("regress", "--matrix", "{tmp}/none.toml"), "none.toml does not exist"),
    (("regress", "--matrix", MATRIX, "--jobs", "abc"), "-j abc is not a positive number"),
    (("regress", "--matrix", MATRIX, "--jobs", "0"), "-j 0 is not a positive number"),
    (("regress", "--matrix", MATRIX, "--shard", "x"), "--shard 'x' is not i/N"),
    (("regress", "--matrix", MATRIX, "--shard", "3/2"), "--shard '3/2' is not i/N"),
    (("regress", "--matrix", MATRIX, "--require", "sim"), "--require sim is not a simulator"),
    (("regress", "--matrix", MATRIX, "--filter", "zzz*"), "matches --filter 'zzz*'"),
    (("regress", "--matrix", MATRIX, "--scheduler", "notaurl"), "is not a scheduler address"),
    (("verify", "--model", "add", "--target", "cortex-m99"), "unknown target 'cortex-m99'"),
    (("verify", "--model", "nosuch", "--target", "ethos-u55-128"), "unknown model 'nosuch'"),
    (("verify", "--model", "add", "--target", "cortex-m55"), "target cortex-m55 has no"),
    (("verify", "--model", "add", "--quantize", "int4"), "unknown quantization 'int4'"),
    (("verify", "--model", "add", "--no-delegate"), "--no-delegate compiles add without any"),
    (("verify", "--model", "add", "--vela-flags", "--optimise Sideways"),
     "--optimise does not take the value 'Sideways'"),
    (("isa-check", "--on", "cortex-m4"), "it needs at least two"),
    (("isa-check", "--on", "cortex-m4:mve", "--on", "cortex-m3"),
     "cortex-m4 cannot execute CMSIS-NN's MVE kernels"),
    (("isa-check", "--on", "cortex-m99", "--on", "cortex-m3"), "unknown target 'cortex-m99'"),
    (("isa-check", "--on", "ethos-u55-128", "--on", "cortex-m3"), "ethos-u55-128 has an NPU"),
    (("regress-merge", "--reports", ""), "--reports '' is not a name"),
    (("regress-merge", "--reports", "{tmp}/binary.log"), "binary.log is not valid JSON"),
    (("regress-merge", "--reports", "{tmp}"), "no regression report at"),
]


@pytest.mark.parametrize(("argv", "message"), CASES)
def test_bad_value_is_one_line_and_exit_2(argv, message, tmp_path):
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(tmp_path / "scratch")}
    env.pop("ETHOSU_ORCH_MIRROR", None)
    (tmp_path / "binary.log").write_bytes(bytes(range(256)) * 4)
    argv = [arg.format(tmp=tmp_path) for arg in argv]
    done = subprocess.run([sys.executable, "-m", "invoke", *argv], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    downloads = tmp_path / "scratch" / "downloads"
    assert not downloads.exists() or not any(downloads.iterdir()), "something was downloaded"
