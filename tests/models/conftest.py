"""Fixtures of the model-name tests: a private scratch tree (exported), a real HTTP server on
127.0.0.1 serving a folder (a weights mirror)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from orchestrator.paths import SCRATCH_ENV, Scratch, scratch


@pytest.fixture
def tree(tmp_path, monkeypatch) -> Scratch:
    """A private scratch/ (also exported, so nothing touches the repo's scratch/)."""
    root = tmp_path / "scratch"
    monkeypatch.setenv(SCRATCH_ENV, str(root))
    return scratch(root).ensure()


@dataclass(frozen=True)
class FolderServer:
    """The served folder and its base URL."""

    directory: Path
    url: str


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def file_server(tmp_path) -> Iterator[FolderServer]:
    """A threaded HTTP server on 127.0.0.1 serving tmp_path/served (stopped afterwards)."""
    folder = tmp_path / "served"
    folder.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(folder))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield FolderServer(folder, f"http://127.0.0.1:{httpd.server_address[1]}")
    httpd.shutdown()
    httpd.server_close()
