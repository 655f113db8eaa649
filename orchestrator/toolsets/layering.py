"""A toolset's environment layered on the tool's REAL one: the site directories of the
interpreter that runs the tool (a venv's, a system interpreter's, a user install's), not the
base interpreter's that `venv --system-site-packages` would give when the tool runs in a venv.

The toolset's venv is made without system site packages; a .pth file in its own
site-packages adds the tool's site directories after its own (site.addsitedir, so their .pth
files, editable installs included, work there too). The toolset's packages shadow the tool's;
everything else (torch above all) is the tool's, never a second copy.
"""

from __future__ import annotations

import fnmatch
import json
import re
import site
import subprocess
import sys
from pathlib import Path

LAYER_FILE = "zz_ethosu_orchestrator_tool_site.pth"
# Never installed into a toolset unless the toolset pins it (with a digest): gigabytes
# (a registry torch is a CUDA build; triton and nvidia-* come with it).
HEAVY = ("torch", "triton", "nvidia-*")
_SITE_SCRIPT = ("import json, site, sys\n"
                "dirs = [d for d in site.getsitepackages() if d in sys.path]\n"
                "user = site.getusersitepackages()\n"
                "dirs += [user] if site.ENABLE_USER_SITE and user in sys.path else []\n"
                "print(json.dumps(dirs))")


def tool_site_directories(python: Path | None = None) -> list[str]:
    """The site directories of `python` (default: the interpreter running now), in order."""
    if python is None:
        dirs = [entry for entry in site.getsitepackages() if entry in sys.path]
        user = site.getusersitepackages()
        return dirs + ([user] if site.ENABLE_USER_SITE and user in sys.path else [])
    printed = subprocess.run([str(python), "-c", _SITE_SCRIPT], capture_output=True,
                             text=True, check=True).stdout
    return [str(entry) for entry in json.loads(printed.strip().splitlines()[-1])]


def own_site_packages(environment: Path) -> Path:
    """The environment's own site-packages (lib/pythonX.Y/site-packages)."""
    found = sorted(environment.glob("lib/python*/site-packages"))
    if not found:
        raise FileNotFoundError(f"{environment} has no lib/python*/site-packages")
    return found[0]


def layer_on(environment: Path, directories: list[str]) -> Path:
    """Make `environment` see `directories` after its own site-packages; the .pth written."""
    pth = own_site_packages(environment) / LAYER_FILE
    lines = [f"import site; site.addsitedir({directory!r})" for directory in directories]
    pth.write_text("\n".join(lines) + "\n")
    return pth


def layered_directories(environment: Path) -> list[str]:
    """The directories `environment` is layered on ([] when it is not)."""
    try:
        pth = own_site_packages(environment) / LAYER_FILE
    except FileNotFoundError:
        return []
    if not pth.exists():
        return []
    return re.findall(r"addsitedir\('([^']*)'\)", pth.read_text())


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def is_heavy(name: str) -> bool:
    return any(fnmatch.fnmatch(canonical(name), pattern) for pattern in HEAVY)


def own_distributions(environment: Path) -> dict[str, str]:
    """Distributions installed in the environment's OWN site-packages: name -> version."""
    found: dict[str, str] = {}
    for info in own_site_packages(environment).glob("*.dist-info"):
        name, _, version = info.name[: -len(".dist-info")].partition("-")
        found[canonical(name)] = version
    return found


def own_heavy(environment: Path) -> list[str]:
    """'torch 2.13.0' for each heavy distribution the environment holds of its own."""
    return [f"{name} {version}" for name, version in sorted(own_distributions(environment).items())
            if is_heavy(name)]
