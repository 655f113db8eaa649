"""A pinned build input (pins.toml [inputs.X]): its record and its parse, apart from the
rest of the setup catalogue, so that a run handing one to a build (the Vela sdist of the NPU
model) reads its one table and builds no other setup record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from orchestrator.foundation.pins import load_pins

DIGEST_KINDS = ("sha256", "md5")
NEEDED_FOR = ("all", "npu", "cpu")


@dataclass(frozen=True)
class BuildInput:
    """A pinned file a build reads as it is (no unpacking): fetched into the download cache,
    digest-checked, and handed to the build by path."""

    name: str
    url: str
    digests: dict[str, str]
    needed_for: str = "all"
    digest_note: str = ""

    @property
    def filename(self) -> str:
        return self.url.rstrip("/").rsplit("/", 1)[-1]


def parse_input(name: str, table: Mapping[str, Any]) -> BuildInput:
    """Parse one [inputs.X] table."""
    digests = {kind: str(table[kind]).lower() for kind in DIGEST_KINDS if kind in table}
    needed_for = table.get("needed_for", "all")
    if not digests or "url" not in table or needed_for not in NEEDED_FOR:
        raise ValueError(f"pins: inputs.{name} needs url, a digest and a known needed_for")
    return BuildInput(name=name, url=str(table["url"]), digests=digests, needed_for=needed_for,
                      digest_note=table.get("digest_note", ""))


def pinned_input(name: str) -> BuildInput:
    """[inputs.<name>] of orchestrator/data/pins.toml."""
    return parse_input(name, load_pins()["inputs"][name])
