"""The NPU-model tests import their helpers from this folder (the `sweep` marker is handled
suite-wide in tests/conftest.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
