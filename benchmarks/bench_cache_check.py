"""Benchmark what a cache entry's self-check costs (orchestrator/foundation/cache_check.py):
the check every use makes (stat each recorded file, hash only the ones that moved) and the
full one of `invoke products --verify` (hash every file), against a warm (cached) compile.

    python benchmarks/bench_cache_check.py [--scratch DIR] [--model convnet]
                                           [--target ethos-u85-128] [--repeat 50] [--json]

Compiles the model into the scratch (a fresh temporary one by default; cold the first time),
then times a warm `api.compile` of it and both checks on every recorded entry the scratch
holds: products, lowerings and toolset environments. Printed: per kind, the entries, files,
the use check and the full check in ms, and the use check as a share of the warm compile.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from functools import partial
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from orchestrator import api  # noqa: E402
from orchestrator.foundation.cache_check import RECORD, damage  # noqa: E402


def _timed_ms(action: Any, repeat: int) -> float:
    started = time.perf_counter()
    for _ in range(repeat):
        action()
    return (time.perf_counter() - started) * 1000 / repeat


def _entries(root: Path) -> dict[str, list[Path]]:
    """The scratch's recorded entries by kind."""
    recorded = [record.parent for record in root.rglob(RECORD)]
    kinds: dict[str, list[Path]] = {"product": [], "lowering": [], "toolset": [], "other": []}
    for entry in recorded:
        parts = entry.relative_to(root).parts
        kind = ("toolset" if parts[0] == "toolsets" else "lowering" if "lowered" in parts
                else "product" if parts[0] == "models" else "other")
        kinds[kind].append(entry)
    return {kind: entries for kind, entries in kinds.items() if entries}


def _check_all(entries: list[Path], full: bool) -> None:
    for entry in entries:
        assert damage(entry, full=full) is None, f"{entry} is damaged"


def measure(root: Path, model: str, target: str, repeat: int) -> dict[str, Any]:
    api.compile(scratch=root, quiet=True, model=model, target=target)
    warm_ms = _timed_ms(lambda: api.compile(scratch=root, quiet=True, model=model,
                                            target=target), 3)
    kinds = {}
    for kind, entries in _entries(root).items():
        files = sum(1 for entry in entries for path in entry.rglob("*") if path.is_file())
        use_ms = _timed_ms(partial(_check_all, entries, False), repeat)
        full_ms = _timed_ms(partial(_check_all, entries, True), 1)
        kinds[kind] = {"entries": len(entries), "files": files, "use_ms": round(use_ms, 2),
                       "full_ms": round(full_ms, 1),
                       "use_share_of_warm_compile": round(use_ms / warm_ms, 4)}
    return {"model": model, "target": target, "warm_compile_ms": round(warm_ms, 1),
            "kinds": kinds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scratch", type=Path)
    parser.add_argument("--model", default="convnet")
    parser.add_argument("--target", default="ethos-u85-128")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as fresh:
        result = measure(args.scratch or Path(fresh), args.model, args.target, args.repeat)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['model']} on {result['target']}: warm compile "
          f"{result['warm_compile_ms']} ms")
    for kind, figures in result["kinds"].items():
        print(f"    {kind:<9} {figures['entries']} entries, {figures['files']} files: use check "
              f"{figures['use_ms']} ms ({figures['use_share_of_warm_compile']:.1%} of the warm "
              f"compile), full check {figures['full_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
