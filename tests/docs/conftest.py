"""The scratch set up with upstream sources that the API tests use (tests/api/conftest.py),
for the documented commands that run, build, evaluate or regress."""

from __future__ import annotations

import runpy
from pathlib import Path

sourced_scratch = runpy.run_path(
    str(Path(__file__).resolve().parents[1] / "api" / "conftest.py"))["sourced_scratch"]
