"""Real test doubles for setup: an HTTP server on 127.0.0.1, archives, installers, git repos."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import tarfile
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from orchestrator.setup.catalogue import SetupCatalogue, parse_setup_catalogue
from orchestrator.setup.download import DownloadPolicy

FAST_POLICY = DownloadPolicy(attempts=4, backoff=0.01, timeout=5.0, progress=False)
FVP_VERSION_LINE = "Fast Models [11.27.42 (Sep 16 2024)]"


# -- HTTP server -------------------------------------------------------------------------------

@dataclass
class Route:
    """One served file and how it misbehaves: 500s first, truncated bodies first, a delay."""

    body: bytes
    fail_first: int = 0
    truncate_first: int = 0
    delay: float = 0.0
    status: int = 200


@dataclass
class Hits:
    """What the server saw: (path, Range header) per GET."""

    requests: list[tuple[str, str]] = field(default_factory=list)

    def count(self, path: str) -> int:
        return sum(1 for seen, _range in self.requests if seen == path)


class FileServer:
    """A threaded HTTP server serving `routes` with Range support."""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits = Hits()
        handler = _make_handler(self)
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,),
                                       daemon=True)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def url(self, path: str) -> str:
        return f"{self.base}/{path.lstrip('/')}"

    def start(self) -> FileServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _make_handler(server: FileServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def do_GET(self) -> None:  # noqa: N802 - http.server naming
            path = self.path.split("?")[0].lstrip("/")
            server.hits.requests.append((path, self.headers.get("Range", "")))
            route = server.routes.get(path)
            if route is None or route.status == 404:
                self._reply(404, b"not found")
                return
            time.sleep(route.delay)
            if route.fail_first > 0:
                route.fail_first -= 1
                self._reply(500, b"try again")
                return
            start = _range_start(self.headers.get("Range", ""))
            body = route.body[start:]
            self.send_response(206 if start else 200)
            self.send_header("Content-Length", str(len(body)))
            if start:
                self.send_header("Content-Range",
                                 f"bytes {start}-{len(route.body) - 1}/{len(route.body)}")
            self.end_headers()
            if route.truncate_first > 0:
                route.truncate_first -= 1
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

        def _reply(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


def _range_start(header: str) -> int:
    """'bytes=N-' -> N."""
    if header.startswith("bytes=") and header.endswith("-"):
        return int(header[len("bytes="):-1])
    return 0


def free_port() -> int:
    """A port nothing listens on (bound then released)."""
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- archives ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Member:
    """A tar member: file (data), directory, or symlink (link)."""

    name: str
    data: bytes = b""
    mode: int = 0o644
    link: str | None = None
    directory: bool = False
    hardlink: str | None = None


def make_tar(members: list[Member], kind: str) -> bytes:
    """Bytes of a tar.xz / tgz / tar holding `members` (written exactly as given)."""
    mode = {"tar.xz": "w:xz", "tgz": "w:gz", "tar": "w"}[kind]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as tar:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.mtime = 1_700_000_000
            if member.link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, member.link
                tar.addfile(info)
            elif member.hardlink is not None:
                info.type, info.linkname = tarfile.LNKTYPE, member.hardlink
                tar.addfile(info)
            elif member.directory:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(member.data), member.mode
                tar.addfile(info, io.BytesIO(member.data))
    return buffer.getvalue()


def script(body: str) -> bytes:
    """A POSIX shell script."""
    return f"#!/bin/sh\n{body}\n".encode()


def toolchain_members(top: str, version: str = "15.2.1", extra: int = 0,
                      incompressible: bool = False) -> list[Member]:
    """A toy arm-none-eabi toolchain: shell scripts answering -dumpfullversion (+ filler)."""
    tools = ["gcc", "g++", "objcopy", "size", "nm"]
    data = [Member(f"{top}/share/f{i:05d}", os.urandom(2048) if incompressible else b"x" * 512)
            for i in range(extra)]
    bins = [Member(f"{top}/bin/arm-none-eabi-{tool}",
                   script(f'[ "$1" = -dumpfullversion ] && echo {version}; exit 0'), 0o755)
            for tool in tools]
    return data + bins


INSTALLER = r'''#!/bin/sh
# Toy vendor installer: honours exactly the flags the real FVP installers take.
dest=""; agree=0; force=0; quiet=0; nonint=0
while [ $# -gt 0 ]; do
  case "$1" in
    --i-agree-to-the-contained-eula) agree=1 ;;
    --force) force=1 ;;
    --quiet) quiet=1 ;;
    --no-interactive) nonint=1 ;;
    --destination) shift; dest="$1" ;;
    *) echo "unknown option $1" >&2; exit 3 ;;
  esac
  shift
done
if [ $agree != 1 ] || [ $force != 1 ] || [ $quiet != 1 ] || [ $nonint != 1 ]; then
  echo "missing flags" >&2; exit 4
fi
[ -n "$dest" ] || { echo "no destination" >&2; exit 5; }
here=$(dirname "$0")
mkdir -p "$dest/models/@MODEL_DIR@" || exit 6
for fvp in @BINARIES@; do
  cp "$here/payload/fvp" "$dest/models/@MODEL_DIR@/$fvp" || exit 7
  chmod 755 "$dest/models/@MODEL_DIR@/$fvp"
done
if [ -d "$here/payload/python" ]; then cp -r "$here/payload/python" "$dest/python"; fi
if [ -d "$here/payload/lib" ]; then cp "$here/payload/lib/"* "$dest/models/@MODEL_DIR@/"; fi
exit 0
'''


def fvp_package(installer_name: str, binaries: list[str], fvp_body: bytes,
                model_dir: str = "models/Linux64_GCC-9.3", python: bool = False,
                libraries: dict[str, bytes] | None = None) -> bytes:
    """A .tgz like Arm's: the installer script plus a payload it copies into --destination
    (`libraries` go next to the binaries, like libarmctmodel.so)."""
    text = (INSTALLER.replace("@MODEL_DIR@", model_dir.removeprefix("models/"))
            .replace("@BINARIES@", " ".join(binaries)))
    members = [Member(installer_name, text.encode(), 0o755),
               Member("payload/fvp", fvp_body, 0o755)]
    if python:
        members.append(Member("payload/python/lib/libpython3.9.so.1.0", b"not really"))
    members += [Member(f"payload/lib/{name}", data) for name, data in (libraries or {}).items()]
    return make_tar(members, "tgz")


def fvp_ok() -> bytes:
    return script(f'[ "$1" = --version ] && echo "{FVP_VERSION_LINE}" && exit 0; exit 1')


def fvp_refusing_execstack() -> bytes:
    """An FVP as glibc 2.41+ treats it: refused while its libarmctmodel.so (a real ELF next
    to it) asks for an executable stack, unless started with the 2.42 tunable."""
    return script(
        'case "$GLIBC_TUNABLES" in *glibc.rtld.execstack=2*) '
        f'echo "{FVP_VERSION_LINE}"; exit 0;; esac\n'
        'if readelf -lW "$(dirname "$0")/libarmctmodel.so" | grep GNU_STACK | grep -q RWE; then\n'
        'echo "error while loading shared libraries: libarmctmodel.so: cannot enable '
        'executable stack as shared object requires: Invalid argument" >&2; exit 127; fi\n'
        f'echo "{FVP_VERSION_LINE}"; exit 0')


def execstack_library(work: Path) -> bytes:
    """A real shared library whose PT_GNU_STACK asks for an executable stack (host gcc)."""
    source = work / "model.c"
    source.write_text("int armctmodel(void) { return 1; }\n")
    library = work / "libarmctmodel.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-z", "execstack", "-o", str(library),
                    str(source)], check=True, capture_output=True)
    return library.read_bytes()


def fvp_needs_bundled_python() -> bytes:
    return script(
        'if [ -n "$PYTHONHOME" ] && [ -f "$PYTHONHOME/lib/libpython3.9.so.1.0" ]; then '
        f'echo "{FVP_VERSION_LINE}"; exit 0; fi\n'
        'echo "libpython3.9.so.1.0: cannot open shared object file" >&2; exit 127')


WRONG_ARCH_BINARY = b"\x7fELF\x02\x01\x01" + bytes(9) + b"\x02\x00\xb7\x00" + bytes(44)


# -- pins for tests ----------------------------------------------------------------------------

def digests(data: bytes, kinds: tuple[str, ...] = ("sha256",)) -> dict[str, str]:
    return {kind: hashlib.new(kind, data).hexdigest() for kind in kinds}


def host_table(url: str, data: bytes, kinds: tuple[str, ...] = ("sha256",),
               **extra: str) -> dict[str, Any]:
    return {"url": url, **digests(data, kinds), **extra}


def catalogue(artifacts: dict[str, Any] | None = None,
              sources: dict[str, Any] | None = None) -> SetupCatalogue:
    return parse_setup_catalogue({"artifacts": artifacts or {}, "sources": sources or {}})


def toolchain_pin(url: str, data: bytes, top: str, version: str = "15.2.rel1",
                  host: str = "linux-x86_64") -> dict[str, Any]:
    return {"kind": "toolchain", "title": "test toolchain", "version": version,
            "archive": "tar.xz", "bin_dir": "bin", "system_min_version": "12.2",
            "binaries": ["arm-none-eabi-gcc", "arm-none-eabi-g++", "arm-none-eabi-objcopy",
                         "arm-none-eabi-size", "arm-none-eabi-nm"],
            "hosts": {host: host_table(url, data, ("sha256", "md5"), top_dir=top)}}


def fvp_pin(url: str, data: bytes, installer: str, binaries: list[str],
            bundled_python: str = "") -> dict[str, Any]:
    pin = {"kind": "fvp", "title": "test FVP", "version": "11.27_42", "archive": "tgz",
           "installer": installer, "binaries": binaries,
           "hosts": {"linux-x86_64": host_table(url, data, ("md5",),
                                                model_dir="models/Linux64_GCC-9.3")}}
    if bundled_python:
        pin["bundled_python"] = bundled_python
    return pin


# -- git ---------------------------------------------------------------------------------------

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1"}


def run_git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "protocol.file.allow=always", *args], cwd=cwd,
                          capture_output=True, text=True, check=True,
                          env={**os.environ, **GIT_ENV})
    return done.stdout.strip()


def make_repo(path: Path, files: dict[str, str], tag: str | None = None) -> str:
    """A work tree with one commit of `files` (optionally tagged); returns the commit."""
    path.mkdir(parents=True, exist_ok=True)
    if not (path / ".git").exists():
        run_git(path, "init", "-q", "-b", "main")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    run_git(path, "add", "-A")
    run_git(path, "commit", "-q", "-m", f"commit {tag or ''}")
    if tag:
        run_git(path, "tag", tag)
    return run_git(path, "rev-parse", "HEAD")
