"""`<fvp> --version` probes: classify why a binary cannot run and apply the known remedies."""

from __future__ import annotations

import errno
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from orchestrator.setup.catalogue import Artifact
from orchestrator.setup.execstack import (
    EXECSTACK_TUNABLE,
    apply_execstack_fix,
    host_execstack_fix,
)

PROBE_TIMEOUT = 30
__all__ = ["EXECSTACK_TUNABLE", "ProbeResult", "probe_fvp"]
MAC_REMEDY = ("Corstone FVPs do not run on macOS: install https://github.com/Arm-Examples/"
              "FVPs-on-Mac, then invoke setup --fvp-dir <fvp>=<its bin folder>")


@dataclass(frozen=True)
class ProbeResult:
    """What `--version` told us: usable or not, the version, the env it needs, the remedy."""

    ok: bool
    version: str = ""
    env: dict[str, str] = field(default_factory=dict)
    problem: str = ""
    remedy: str = ""
    execstack_fix: str = ""   # tunable | clear_flag when glibc refused its executable stack


def bundled_python_env(python: Path) -> dict[str, str]:
    """Environment for an FVP's bundled python folder (Corstone-320 ships its libpython)."""
    return {"PYTHONHOME": str(python), "LD_LIBRARY_PATH": str(python / "lib")}


def runtime_env(artifact: Artifact, root: Path) -> dict[str, str]:
    """Environment an FVP needs to start (Corstone-320's bundled python)."""
    if not artifact.bundled_python or not (root / artifact.bundled_python).is_dir():
        return {}
    return bundled_python_env(root / artifact.bundled_python)


def _merged_env(extra: dict[str, str]) -> dict[str, str]:
    """os.environ plus `extra`, prepending path-like variables instead of replacing them."""
    env = dict(os.environ)
    for key, value in extra.items():
        if key in ("LD_LIBRARY_PATH", "GLIBC_TUNABLES") and env.get(key):
            env[key] = f"{value}:{env[key]}"
        else:
            env[key] = value
    return env


def _run_version(binary: Path, extra: dict[str, str]) -> tuple[int | None, str]:
    """(exit code or None when it could not start, combined output)."""
    try:
        done = subprocess.run([str(binary), "--version"], capture_output=True, text=True,
                              timeout=PROBE_TIMEOUT, env=_merged_env(extra), check=False,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, f"did not answer --version within {PROBE_TIMEOUT} s"
    except OSError as error:
        if error.errno == errno.ENOEXEC:
            return None, "exec format error"
        return None, error.strerror or str(error)
    return done.returncode, (done.stdout + done.stderr)


def _remedy(output: str, host: str, binary: Path) -> tuple[str, str]:
    """(problem, remedy) for a failed probe."""
    first = output.strip().splitlines()[0][:160] if output.strip() else "exited with an error"
    if host.startswith("darwin"):
        return f"cannot run on macOS ({first})", MAC_REMEDY
    if "exec format error" in output.lower():
        return (f"is built for another CPU than {host}",
                "install this host's build: invoke setup --only <fvp> --force --archive "
                "<fvp>=<archive for this host>")
    if "libpython" in output:
        return (f"cannot load its bundled python ({first})",
                "reinstall so the package's python/ folder is present (PYTHONHOME and "
                "LD_LIBRARY_PATH point at it): invoke setup --only <fvp> --force")
    if "executable stack" in output:
        return (f"is refused by this glibc ({first})",
                "clear the executable-stack flag of its libraries (patchelf --clear-execstack "
                f"on libarmctmodel.so) or, on glibc 2.42+, run it with GLIBC_TUNABLES="
                f"{EXECSTACK_TUNABLE} (setup already tried the one for this glibc)")
    return f"failed --version ({first})", f"run {binary} --version to see why"


def probe_fvp(binary: Path, env: dict[str, str], host: str, name: str) -> ProbeResult:
    """Run `binary --version`; when glibc refuses its executable stack, apply the fix this
    glibc takes (the tunable from 2.42, else clear the flag in its libraries) and retry."""
    if not binary.is_file():
        return ProbeResult(False, problem="is missing after install",
                           remedy=f"invoke setup --only {name} --force")
    code, output = _run_version(binary, env)
    fix = ""
    if code != 0 and "executable stack" in output:
        fix = host_execstack_fix()   # by this host's glibc (setup/execstack.py)
        retry_env = {**env, **apply_execstack_fix(fix, binary.parent)}
        code, retry_output = _run_version(binary, retry_env)
        if code == 0:
            env, output = retry_env, retry_output
    if code == 0:
        match = re.search(r"Fast Models \[([^\]\s]+)", output)
        return ProbeResult(True, version=match.group(1) if match else output.strip()[:80],
                           env=env, execstack_fix=fix)
    problem, remedy = _remedy(output, host, binary)
    return ProbeResult(False, problem=problem, remedy=remedy.replace("<fvp>", name))
