"""Parser throughput: lines per second over the copied transcripts repeated (no timed asserts).

Run: python benchmarks/parse_throughput.py [repeats]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from orchestrator.parse.upstream import UpstreamLogParser

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "transcripts"


def main(repeats: int = 200) -> None:
    """Feed every transcript `repeats` times through one parser and report the rate."""
    lines = [
        line for path in sorted(TRANSCRIPTS.glob("*.log")) for line in path.read_text().splitlines()
    ]
    parser = UpstreamLogParser()
    start = time.perf_counter()
    for _ in range(repeats):
        parser.feed_lines(lines)
    elapsed = time.perf_counter() - start
    total = len(lines) * repeats
    print(f"{total} lines in {elapsed:.2f} s: {total / elapsed:,.0f} lines/s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
