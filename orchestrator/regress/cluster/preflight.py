"""Can a worker do the client's work? Its versions (the tool, pins.toml, the pinned Python
packages, every setup artifact's version) must equal the client's, and each cell's
simulator and sources must be there. A worker that differs is refused in one line naming
what differs and the command that fixes it; cells its stages cannot run go elsewhere."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from orchestrator import __version__
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.pins import PINS_PATH
from orchestrator.regress.report.records import WorkerRow

TOOL = "ethosu-orchestrator"
PINS = "pins.toml"
SETUP_PREFIX = "setup:"


def fingerprint(tree: Scratch) -> dict[str, str]:
    """Every version a cell's result depends on, as this process and scratch see them."""
    from orchestrator.aot.key import tool_versions
    from orchestrator.setup.lock import read_lock

    values = {TOOL: __version__,
              PINS: hashlib.sha256(PINS_PATH.read_bytes()).hexdigest()[:16]}
    values.update(tool_versions())
    for name, entry in sorted(read_lock(tree).items()):
        version = entry.get("version") or entry.get("commit")
        if version:
            values[SETUP_PREFIX + name] = str(version)
    return values


def differences(client: dict[str, str], worker: dict[str, str]) -> list[str]:
    """'what: worker's (client: client's)' for every version the client has and the worker
    does not equal."""
    return [f"{name} {worker.get(name, 'missing')} (client: {wanted})"
            for name, wanted in sorted(client.items()) if worker.get(name) != wanted]


def fix_for(client: dict[str, str], worker: dict[str, str]) -> str:
    """The command that makes the worker's first differing version equal the client's."""
    for name, wanted in sorted(client.items()):
        if worker.get(name) == wanted:
            continue
        if name.startswith(SETUP_PREFIX):
            return f"invoke setup --only {name[len(SETUP_PREFIX):]} (on that worker)"
        if name in (TOOL, PINS):
            return "pip install -e '.[cluster]' from the client's commit (on that worker)"
        return f"pip install {name}=={wanted} (on that worker)"
    return "nothing"


@dataclass
class WorkerCheck:
    """What one worker reported before taking cells."""

    address: str
    host: str = ""
    pid: int = 0
    products: str = ""                 # "shared" (the client's scratch) or "bytes"
    scratch: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)   # cell key -> why not here
    refused: str | None = None         # one line, with the next command, when unfit
    error: str | None = None           # the preflight itself failed

    def judge(self, client: dict[str, str]) -> None:
        """Refuse the worker (one line with the fix) when its versions differ."""
        if self.error:
            self.refused = f"worker {self.address} failed its preflight: {self.error}"
            return
        found = differences(client, self.versions)
        if found:
            self.refused = (f"worker {self.address} ({self.host}) refused: "
                            f"{'; '.join(found)}; next: {fix_for(client, self.versions)}")

    def row(self, cells: int) -> WorkerRow:
        """The worker's row in the report's cluster section (`cells`: the cells it ran)."""
        return WorkerRow(self.address, self.host, self.pid, self.products, self.scratch,
                         "refused" if self.refused else "fit", self.refused,
                         len(self.unavailable), cells)
