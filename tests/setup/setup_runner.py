"""Run one setup in a separate process (for the kill and concurrency tests).

Usage: python setup_runner.py SPEC.json — SPEC has scratch, pins, options, host.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from orchestrator.foundation.cli import run
from orchestrator.foundation.paths import scratch
from orchestrator.setup.catalogue import parse_setup_catalogue
from orchestrator.setup.download import DownloadPolicy
from orchestrator.setup.options import SetupOptions


def main(spec_path: str) -> None:
    """Load the spec and run setup (errors print one line and exit 2, like the CLI)."""
    spec = json.loads(Path(spec_path).read_text())
    options = SetupOptions(**spec["options"], policy=DownloadPolicy(backoff=0.01,
                                                                    progress=False))
    run("orchestrator.setup.installation:run_setup", root=scratch(spec["scratch"]),
        options=options, catalogue=parse_setup_catalogue(spec["pins"]), host=spec["host"])


if __name__ == "__main__":
    main(sys.argv[1])
