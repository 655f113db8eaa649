"""Downloads into the shared cache: streaming, retries with backoff, Range resume, digests."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.progress import step
from orchestrator.setup.digests import describe, digest_mismatches
from orchestrator.setup.filelock import exclusive_lock

if TYPE_CHECKING:   # requests is imported by a download only (not by a cached file's check)
    import requests

RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})


@dataclass(frozen=True)
class DownloadPolicy:
    """How hard to try: attempts, backoff (seconds, doubled each retry), timeouts, progress."""

    attempts: int = 5
    backoff: float = 2.0
    timeout: float = 60.0
    chunk: int = 1 << 16
    progress: bool = True


class RetryableError(Exception):
    """A failure worth another attempt (connection drop, 5xx, truncated body)."""


@dataclass(frozen=True)
class Request:
    """One file to fetch: where from, its cache name, its pinned digests, and the fix hint."""

    url: str
    filename: str
    digests: Mapping[str, str]
    hint: str


def mirrored_url(url: str, mirror: str | None) -> str:
    """The URL to use: the vendor URL, or the same file name under the mirror base URL."""
    if not mirror:
        return url
    return f"{mirror.rstrip('/')}/{url.rstrip('/').rsplit('/', 1)[-1]}"


def verify_local_archive(path: Path, digests: Mapping[str, str], hint: str) -> Path:
    """A user-named archive must match the pins; it is never deleted, only refused."""
    if not path.is_file():
        raise OrchestratorError(f"archive {path} does not exist", hint)
    mismatches = digest_mismatches(path, digests)
    if mismatches:
        raise OrchestratorError(f"archive {path} does not match the pinned digest "
                                f"({'; '.join(mismatches)}), not used", hint)
    return path


def cached_file(cache_dir: Path, request: Request, *, offline: bool = False,
                policy: DownloadPolicy | None = None) -> Path:
    """The verified file in the cache, downloading (or resuming) it unless `offline`."""
    policy = policy or DownloadPolicy()
    with writing(cache_dir):
        cache_dir.mkdir(parents=True, exist_ok=True)
    final = cache_dir / request.filename
    with exclusive_lock(cache_dir / f".{request.filename}.lock"):
        if final.is_file():
            if not digest_mismatches(final, request.digests):
                return final
            final.unlink()
            print(f"setup: cached {final} failed its {describe(request.digests)} check; deleted",
                  file=sys.stderr)
        if offline:
            raise OrchestratorError(f"--offline and {request.filename} is not in the cache "
                                    f"{cache_dir}", request.hint)
        _download_with_retries(request, final, policy)
    return final


def _download_with_retries(request: Request, final: Path, policy: DownloadPolicy) -> None:
    """Fetch into `<final>.part` (resuming), verify, then rename to `final`."""
    import requests

    part = final.with_name(final.name + ".part")
    last = ""
    with requests.Session() as session:
        for attempt in range(1, policy.attempts + 1):
            try:
                _fetch_once(session, request, part, policy)
                break
            except RetryableError as error:
                last = str(error)
            if attempt < policy.attempts:
                time.sleep(policy.backoff * 2 ** (attempt - 1))
        else:
            raise OrchestratorError(f"download of {request.url} failed {policy.attempts} times "
                                    f"({last}); partial data kept for resume", request.hint)
    mismatches = digest_mismatches(part, request.digests)
    if mismatches:
        part.unlink()
        raise OrchestratorError(f"{request.filename} from {request.url} failed its digest check "
                                f"({'; '.join(mismatches)}); the file was deleted, nothing "
                                "was installed", request.hint)
    with writing(final):
        part.replace(final)


def _fetch_once(session: requests.Session, request: Request, part: Path,
                policy: DownloadPolicy) -> None:
    """One HTTP attempt, resuming from the size of `part`; RetryableError on transient faults."""
    import requests

    transient = (requests.ConnectionError, requests.Timeout,
                 requests.exceptions.ChunkedEncodingError)
    url = request.url
    have = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={have}-"} if have else {}
    try:
        with session.get(url, stream=True, timeout=policy.timeout, headers=headers) as response:
            if response.status_code == 416 and have:
                part.unlink()   # our partial file is longer than the resource: start over
                raise RetryableError("server refused the resume range")
            if response.status_code in RETRY_STATUS:
                raise RetryableError(f"HTTP {response.status_code}")
            if response.status_code not in (200, 206):
                raise OrchestratorError(f"{url} answered HTTP {response.status_code}, nothing "
                                        "was installed", request.hint)
            resumed = response.status_code == 206
            total = _total_size(response, have if resumed else 0)
            with writing(part):
                handle = part.open("ab" if resumed else "wb")
            with handle, _progress(part.name.removesuffix(".part"), total,
                                   have if resumed else 0, policy.progress) as advance:
                for chunk in response.iter_content(policy.chunk):
                    with writing(part):   # only the disk write: network errors are OSErrors too
                        handle.write(chunk)
                    advance(len(chunk))
                with writing(part):
                    handle.flush()
    except transient as error:
        raise RetryableError(f"{type(error).__name__}: {str(error)[:160]}") from None


def _total_size(response: requests.Response, offset: int) -> int | None:
    """Full size of the resource if the server said so."""
    length = response.headers.get("Content-Length")
    return int(length) + offset if length and length.isdigit() else None


@contextmanager
def _progress(label: str, total: int | None, done: int,
              enabled: bool) -> Iterator[Callable[[int], None]]:
    """The download as a progress step (bytes done of total); a no-op when disabled."""
    if not enabled:
        yield lambda _n: None
        return
    have = [done]
    with step(f"download {label}") as running:
        def advance(count: int) -> None:
            have[0] += count
            running.update(have[0], total or 0)
        yield advance
