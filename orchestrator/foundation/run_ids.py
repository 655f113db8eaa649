"""Run ids: scratch/runs/<run id>/ (a request gets one when it is made; the options layer
imports this, so it stays apart from the result records)."""

from __future__ import annotations

import os
from datetime import datetime, timezone


def new_run_id() -> str:
    """A fresh run id: UTC time plus a short random suffix (sortable, unique)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{os.urandom(4).hex()}"   # uuid4's source; `uuid` imports `platform`
