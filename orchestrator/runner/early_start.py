"""A warm `invoke run` starts its simulator first, and keeps it only if it is the one the run
would have started (issue 44: the plan, the cache checks and the two ninja no-ops of a warm run
take ~0.12 s, which now pass while the simulator runs).

A model run whose simulation completed leaves a launch record for its request (every option but
the run id) in the scratch: the simulator's command and environment, with the run directory as a
placeholder, the ELF it ran and the bytes of the data files it loaded. The next `invoke run` of
the same request starts that launch at once, in its own run directory and with its own nonce in
the input area, then does everything a run does (plan, compile, build). It adopts the started
simulator only when it arrives at exactly that launch: the same command and environment, the
same ELF file, unchanged since the early start, and the same bytes in every data file.
Anything else stops the early simulator (its whole process group, before the run starts its
own) and removes what it wrote. So what is simulated is always what the run would have
simulated; an early start can only save time.

Only `invoke run` of the model app starts early (not --inputs: a sample session's inputs are
read by the firmware while it runs). ETHOSU_ORCH_EARLY_START=0 turns it off."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.jsonfile import write_bytes_atomic, write_json_atomic
from orchestrator.sim.launch import COMMAND, TRANSCRIPT, Launch, start
from orchestrator.sim.process import RunningProcess

if TYPE_CHECKING:
    from orchestrator.foundation.paths import Scratch
    from orchestrator.options.run import RunRequest

SWITCH_ENV = "ETHOSU_ORCH_EARLY_START"
RECORDS = "launches"            # scratch/build/launches/<request key>.json
RECORD_FORMAT = "launch-1"
PLACEHOLDER = "{run_dir}"
EARLY_LOG = ".early-transcript.log"   # the transcript's name until the run adopts it
NONCE_BYTES = 4
KEPT_RECORDS = 32   # the requests most recently run keep theirs (each holds its area files)

_pending: dict[str, EarlyStart] = {}   # run id -> its early start, until the run claims it
_requests: dict[str, _Request] = {}    # run id -> where its record is, and what it held


@dataclass(frozen=True)
class LaunchRecord:
    """What a completed run launched: command and environment with PLACEHOLDER for its run
    directory, the ELF, each data file's bytes by name, where its nonce sits (file name,
    offset) and the host deadline its simulator had."""

    command: tuple[str, ...]
    env: dict[str, str]
    elf: str
    data: dict[str, bytes]
    nonce: tuple[str, int]
    deadline_s: float


@dataclass(frozen=True)
class _Request:
    """A run begun under early_start: its request's key, its scratch, and the launch record
    the key had when the run began (None: none), which `remember` keeps or replaces."""

    key: str
    work: Scratch
    record: LaunchRecord | None


@dataclass
class EarlyStart:
    """A simulator started from a launch record, not yet adopted by its run."""

    launch: Launch
    data: dict[str, bytes]
    elf: Path
    elf_identity: tuple[int, ...]
    deadline_s: float
    nonce: int
    process: RunningProcess

    def adopt(self, launch: Launch, data: Mapping[str, bytes], elf: Path, deadline_s: float
              ) -> RunningProcess | None:
        """The running simulator when `launch` with `data` and `elf` is exactly what it
        started (the ELF untouched since) and the host deadline it has been held to is the
        run's; otherwise None, with it stopped and its files removed."""
        same = (launch == self.launch and dict(data) == self.data and elf == self.elf
                and file_identity(elf) == self.elf_identity and deadline_s == self.deadline_s)
        if not same:
            self.discard()
            return None
        self.process.move_log(launch.run_dir / TRANSCRIPT)
        return self.process

    def discard(self) -> None:
        """Stop the simulator and remove what the early start wrote (the run directory too,
        when that leaves it empty)."""
        self.process.stop()
        _remove(self.launch.run_dir, self.data)


def enabled() -> bool:
    """Early starts are on unless ETHOSU_ORCH_EARLY_START=0."""
    return os.environ.get(SWITCH_ENV, "1") != "0"


def request_key(request: RunRequest) -> str:
    """The request's identity, its run id aside: runs of the same request share a record."""
    described = asdict(request)
    described.pop("run_id", None)
    text = json.dumps(described, sort_keys=True, default=str)
    return hashlib.sha256(f"{RECORD_FORMAT}\0{text}".encode()).hexdigest()[:24]


def file_identity(path: Path) -> tuple[int, ...]:
    """Device, inode, size and change times: any write or replacement changes it."""
    try:
        stat = path.stat()
    except OSError:
        return ()
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


@contextmanager
def early_start(request: RunRequest, work: Scratch) -> Iterator[None]:
    """While the block runs `request`: its simulator started early when a launch record of
    the same request exists (simulate_model claims it); a start the run did not claim is
    stopped and removed when the block ends, however it ends."""
    run_id = request.run_id
    if request.app == "runner" and not request.compile.inputs and enabled():
        key = request_key(request)
        record = _read(work, key)
        _requests[run_id] = _Request(key, work, record)
        started = None if record is None else _start(record, work.runs / run_id)
        if started is not None:
            _pending[run_id] = started
    try:
        yield
    finally:
        _requests.pop(run_id, None)
        left = _pending.pop(run_id, None)
        if left is not None:
            left.discard()


def claim(run_id: str) -> EarlyStart | None:
    """The early start of run `run_id`, handed over once (None when there is none)."""
    return _pending.pop(run_id, None)


def drop(run_id: str) -> None:
    """Stop run `run_id`'s early start now: the run knows it will launch something else
    (its model is about to be compiled), so the simulator must not compete with that work."""
    started = claim(run_id)
    if started is not None:
        started.discard()


def remember(run_id: str, launch: Launch, data: Mapping[str, bytes], nonce: tuple[str, int],
             deadline_s: float, elf: Path) -> None:
    """Keep `launch` as the record of run `run_id`'s request (only for a run begun under
    early_start: one whose request has a key). Unchanged records are not rewritten, only
    marked as recently run."""
    begun = _requests.get(run_id)
    if begun is None:
        return
    command, env = _placed(launch.command, launch.env, str(launch.run_dir), PLACEHOLDER)
    record = _without_nonce(LaunchRecord(command, env, str(elf), dict(data), nonce, deadline_s))
    if begun.record != record:
        _write(begun.work, begun.key, record)
        return
    try:   # unchanged: marked as recently run (pruning keeps the newest)
        os.utime(_records(begun.work) / f"{begun.key}.json")
    except OSError:
        pass


def _records(work: Scratch) -> Path:
    return work.build / RECORDS


def _start(record: LaunchRecord, run_dir: Path) -> EarlyStart | None:
    """Start the recorded launch in `run_dir` (None: its ELF is gone, or it cannot start)."""
    elf = Path(record.elf)
    identity = file_identity(elf)
    if not identity:
        return None
    nonce = int.from_bytes(os.urandom(NONCE_BYTES), "little")
    data = _with_nonce(record.data, record.nonce, nonce)
    launch = Launch(*_placed(record.command, record.env, PLACEHOLDER, str(run_dir)), run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)
        for name, content in data.items():
            (run_dir / name).write_bytes(content)
        process = start(launch, run_dir / EARLY_LOG)
    except (OSError, OrchestratorError):   # the run starts its own, and says why if it can't
        _remove(run_dir, data)
        return None
    process.stop_at(record.deadline_s)
    return EarlyStart(launch, data, elf, identity, record.deadline_s, nonce, process)


def _remove(run_dir: Path, data: Mapping[str, bytes]) -> None:
    """Remove what an early start wrote in `run_dir`, and the directory if that empties it."""
    for name in (EARLY_LOG, COMMAND, *data):
        (run_dir / name).unlink(missing_ok=True)
    try:
        run_dir.rmdir()
    except OSError:
        pass   # the run wrote files of its own there


def _placed(command: tuple[str, ...], env: Mapping[str, str], old: str, new: str
            ) -> tuple[tuple[str, ...], dict[str, str]]:
    """The command and environment with `old` (a run directory or PLACEHOLDER) as `new`."""
    return (tuple(arg.replace(old, new) for arg in command),
            {name: value.replace(old, new) for name, value in env.items()})


def _with_nonce(data: Mapping[str, bytes], where: tuple[str, int], nonce: int
                ) -> dict[str, bytes]:
    """The data files with `nonce` (little-endian) written where the record says."""
    name, offset = where
    placed = dict(data)
    blob = placed[name]
    placed[name] = (blob[:offset] + nonce.to_bytes(NONCE_BYTES, "little")
                    + blob[offset + NONCE_BYTES:])
    return placed


def _without_nonce(record: LaunchRecord) -> LaunchRecord:
    """The record as kept: its nonce bytes zeroed (each run writes its own)."""
    return LaunchRecord(record.command, record.env, record.elf,
                        _with_nonce(record.data, record.nonce, 0), record.nonce,
                        record.deadline_s)


def _read(work: Scratch, key: str) -> LaunchRecord | None:
    """The record of `key`, or None when there is none or it cannot be read whole."""
    folder = _records(work)
    try:
        kept: dict[str, Any] = json.loads((folder / f"{key}.json").read_text())
        if kept.get("format") != RECORD_FORMAT:
            return None
        data = {name: (folder / f"{key}.{name}").read_bytes() for name in kept["data"]}
        nonce = (str(kept["nonce"][0]), int(kept["nonce"][1]))
        if not 0 <= nonce[1] <= len(data[nonce[0]]) - NONCE_BYTES:
            return None
        return LaunchRecord(tuple(kept["command"]), dict(kept["env"]), str(kept["elf"]), data,
                            nonce, float(kept["deadline_s"]))
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return None


def _write(work: Scratch, key: str, record: LaunchRecord) -> None:
    """Keep `record` (as kept: its nonce zeroed; the data files first, the JSON naming them
    last); a scratch that cannot be written only loses the early start."""
    folder = _records(work)
    try:
        for name, content in record.data.items():
            write_bytes_atomic(folder / f"{key}.{name}", content)
        write_json_atomic(folder / f"{key}.json", {
            "format": RECORD_FORMAT, "command": list(record.command), "env": record.env,
            "elf": record.elf, "data": sorted(record.data), "nonce": list(record.nonce),
            "deadline_s": record.deadline_s})
        _prune(folder)
    except (OSError, OrchestratorError):   # the atomic writers name a write fault this way
        return


def _prune(folder: Path) -> None:
    """Remove all but the KEPT_RECORDS newest records (each record's JSON and area files)."""
    records = sorted(folder.glob("*.json"), key=lambda path: path.stat().st_mtime_ns)
    for record in records[:-KEPT_RECORDS]:
        for path in folder.glob(f"{record.stem}.*"):
            path.unlink(missing_ok=True)
