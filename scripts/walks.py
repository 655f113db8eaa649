"""The walk of one invoke command through the house: the rooms it enters (orchestrator modules
whose code runs) and the climbs it makes (calls from a module to one in a higher layer, by the
layer table of tests/foundation/test_layers.py in the same tree: a callback handed down).

    python scripts/walks.py [--tree DIR] [--json OUT] -- \
        run --target ethos-u85-128 --model mv2 --sim qemu

`--tree` measures another checkout of the project (its own orchestrator and layer table; give
it its own scratch with ETHOSU_ORCH_SCRATCH). Only this process is traced: a compile or a
simulator in a child process counts as the module that started it. Prints one JSON document.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import threading
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

PACKAGE = "orchestrator"


def layer_table(tree: Path) -> Any:
    """The tree's own layer_of (tests/foundation/test_layers.py)."""
    spec = importlib.util.spec_from_file_location(
        "walks_layers", tree / "tests" / "foundation" / "test_layers.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Walk:
    """Rooms and climbs seen by the profile hook."""

    def __init__(self, layers: Any) -> None:
        self.layers = layers
        self.rooms: Counter[str] = Counter()
        self.climbs: Counter[tuple[str, str]] = Counter()
        self._layer: dict[str, int] = {}

    def layer(self, module: str) -> int:
        if module not in self._layer:
            try:
                self._layer[module] = self.layers.layer_of(module)
            except AssertionError:         # a module the table does not place
                self._layer[module] = -1
        return self._layer[module]

    def hook(self, frame: FrameType, event: str, _arg: object) -> None:
        if event != "call":
            return
        callee = frame.f_globals.get("__name__", "")
        if not callee.startswith(PACKAGE):
            return
        self.rooms[callee] += 1
        back = frame.f_back
        caller = back.f_globals.get("__name__", "") if back is not None else ""
        if caller.startswith(PACKAGE) and caller != callee:
            low, high = self.layer(caller), self.layer(callee)
            if low >= 0 and high > low:
                self.climbs[(caller, callee)] += 1

    def report(self) -> dict[str, Any]:
        return {"rooms": len(self.rooms), "climbs": sum(self.climbs.values()),
                "climb_edges": len(self.climbs),
                "edges": [f"{a} -> {b} ({n})" for (a, b), n in sorted(self.climbs.items())],
                "modules": sorted(self.rooms)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--json", type=Path, help="also write the document here")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the invoke arguments")
    options = parser.parse_args()
    argv = [part for part in options.command if part != "--"]
    tree = options.tree.resolve()
    sys.path.insert(0, str(tree))
    walk = Walk(layer_table(tree))
    from invoke.main import program

    code = 0
    threading.setprofile(walk.hook)
    sys.setprofile(walk.hook)
    try:
        program.run(["invoke", "--search-root", str(tree), *argv], exit=False)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 1
    finally:
        sys.setprofile(None)
        threading.setprofile(None)   # type: ignore[arg-type]
    document = {"tree": str(tree), "command": argv, "exit": code, **walk.report()}
    text = json.dumps(document, indent=2)
    if options.json:
        options.json.write_text(text + "\n", encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
