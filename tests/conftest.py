"""Suite-wide: the `sweep` marker (exhaustive sweeps and large data sets run only when asked
for, -m sweep; a representative slice runs by default; tests/ci_slice.py lists the tests moved
there for CI's time), and a real HTTP server on 127.0.0.1 serving a folder (the mirror of the
weights and toolset tests)."""

from __future__ import annotations

import functools
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from ci_slice import moved_to_sweep, stale_patterns


@pytest.hookimpl(tryfirst=True)   # before -m selects by marker
def pytest_configure(config: pytest.Config) -> None:
    """Ctrl-C tests send SIGINT to a child (`invoke run`, `invoke evaluate`, a regress client):
    a suite started with SIGINT ignored (a shell's `cmd &` without job control does that, and
    children inherit it) would let the child finish and exit 0. A handler is not inherited
    across exec, so installing Python's own makes every child start with the default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    whole_suite = config.args_source is pytest.Config.ArgsSource.TESTPATHS
    stale = stale_patterns([item.nodeid for item in items]) if whole_suite else []
    if stale:
        raise pytest.UsageError(f"tests/ci_slice.py names no collected test: {stale[0]}; next: "
                                "update the pattern to the test's new name")
    for item in items:
        if moved_to_sweep(item.nodeid):
            item.add_marker(pytest.mark.sweep)
    if "sweep" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="exhaustive sweep or large data set: run with -m sweep")
    for item in items:
        if "sweep" in item.keywords:
            item.add_marker(skip)


@dataclass
class FolderServer:
    """The served folder, its base URL, and the paths asked for (in order)."""

    directory: Path
    url: str
    requested: list[str] = field(default_factory=list)


def _handler(server: FolderServer) -> type[SimpleHTTPRequestHandler]:
    class QuietRecordingHandler(SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            server.requested.append(self.path)
            super().do_GET()

        def log_message(self, *_args: object) -> None:
            pass

    return QuietRecordingHandler


@pytest.fixture
def file_server(tmp_path) -> Iterator[FolderServer]:
    """A threaded HTTP server on 127.0.0.1 serving tmp_path/served (a mirror; stopped
    afterwards)."""
    folder = tmp_path / "served"
    folder.mkdir()
    served = FolderServer(folder, "")
    handler = functools.partial(_handler(served), directory=str(folder))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    served.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield served
    httpd.shutdown()
    httpd.server_close()
