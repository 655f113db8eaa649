"""ETDump base64 blocks (`#[RUN THIS]` ... `#[END]`), decoded to files."""

from __future__ import annotations

import base64
import binascii
import re
from pathlib import Path

from orchestrator.parse.facts import LogFacts
from orchestrator.parse.lines import LogLine

BUFFER_SIZE = re.compile(r"^\[base64\] buffer size: (\d+)")
ECHO = re.compile(r'^echo "([^"]*)" \| base64 -d ?> ?(\S+)')
SAFE_NAME = re.compile(r"^[\w.-]+$")


class EtdumpBlocks:
    """Decodes each base64 payload of an ETDump block; writes it when an output dir is given."""

    def __init__(self, out_dir: Path | None = None) -> None:
        self.out_dir = out_dir
        self.blobs: dict[str, bytes] = {}
        self._inside = False
        self._blocks = 0

    def feed(self, line: LogLine, facts: LogFacts) -> bool:
        """Consume block markers, comments, the inspector command and echo payload lines."""
        text = line.message.strip()
        size = BUFFER_SIZE.match(text) if line.is_et else None
        if size is not None:
            facts.runner["etdump_buffer_size"] = int(size[1])
            return True
        if text == "#[RUN THIS]":
            self._inside, self._blocks = True, self._blocks + 1
            return True
        if not self._inside:
            return False
        if text == "#[END]":
            self._inside = False
            return True
        echo = ECHO.match(text)
        if echo:
            self._decode(echo[1], echo[2], line, facts)
        return True

    def _decode(self, payload: str, target: str, line: LogLine, facts: LogFacts) -> None:
        """Decode one payload; a corrupt one is reported as an error line, never raised."""
        name = Path(target).name if SAFE_NAME.match(Path(target).name) else "etdump.bin"
        if self._blocks > 1:
            name = f"{Path(name).stem}-{self._blocks}{Path(name).suffix}"
        try:
            data = base64.b64decode(payload, validate=True)
        except (binascii.Error, ValueError):
            facts.error_line(f"line {line.number}: ETDump payload for {name} is not valid base64")
            return
        self.blobs[name] = data
        facts.runner.setdefault("etdump_files", {})[name] = len(data)
        if self.out_dir is not None:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            path = self.out_dir / name
            path.write_bytes(data)
            facts.artifacts[Path(name).stem] = str(path)
