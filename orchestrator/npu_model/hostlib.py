"""Build the C core of the NPU model for the host (CMake, cached) and load it with ctypes."""

from __future__ import annotations

import ctypes
import functools
import hashlib
import subprocess
from pathlib import Path

from orchestrator.foundation.cmake_cache import CACHE, forget_moved_cache, recorded_path
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.hosttools import python_interpreter
from orchestrator.foundation.paths import repo_root, scratch
from orchestrator.npu_model.hostlib_cache import cached_library, keep_library, library_key
from orchestrator.npu_model.regor_source import sdist_pin, vela_sdist
from orchestrator.setup.filelock import exclusive_lock

SOURCE_DIR = Path("firmware") / "npu_model"
LIBRARY_NAME = "libnpu_model_host.so"
PROBE_NAME = "libnpu_model_probe.so"   # test-only entries (firmware/npu_model/test)
STATUS_MESSAGE_BYTES = 192
SDIST_OPTION = "NPU_MODEL_REGOR_SDIST"   # the Vela sdist the U85 tables come from


class NpuConfig(ctypes.Structure):
    """npu_model_npu: arch (55/65/85), MACs per core, cores."""

    _fields_ = [("arch", ctypes.c_uint8), ("macs", ctypes.c_uint16), ("cores", ctypes.c_uint8)]


class ModelStatus(ctypes.Structure):
    """npu_model_status: a code and a one-line message."""

    _fields_ = [("code", ctypes.c_int), ("message", ctypes.c_char * STATUS_MESSAGE_BYTES)]


def build_directory(root: Path | None = None, probe: bool = False) -> Path:
    """One build per checkout: a scratch shared by several checkouts (the tests' shared compile
    scratch) must not hand one checkout a library built from another's sources. The tests'
    probe library has its own build (its configure option must not touch the verify build)."""
    source = str((repo_root() / SOURCE_DIR).resolve())
    checkout = hashlib.sha256(source.encode()).hexdigest()[:8]
    return (root or scratch().build) / f"npu-model-{'probe' if probe else 'host'}-{checkout}"


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = " / ".join((done.stdout + done.stderr).strip().splitlines()[-3:])
        raise OrchestratorError(f"building the NPU model failed at {what}: {tail}",
                                f"run it by hand to see the full log: {' '.join(command)}")


def build_library(root: Path | None = None, probe: bool = False) -> Path:
    """The host shared library (or the tests' probe library): the user cache's build of the
    same inputs (orchestrator/npu_model/hostlib_cache.py), else configured (once) and built in the
    scratch (ninja makes a rebuild a no-op) and kept in the user cache."""
    source = repo_root() / SOURCE_DIR
    sdist = vela_sdist()   # fetched here on first need, never inside the build
    options = ["-DCMAKE_BUILD_TYPE=Release", "-DNPU_MODEL_SHARED=ON",
               f"-DNPU_MODEL_PROBE={'ON' if probe else 'OFF'}"]
    name = PROBE_NAME if probe else LIBRARY_NAME
    key = library_key(source, options, sdist_pin().sha256)
    found = cached_library(key, name)
    if found is not None:
        return found
    out = build_directory(root, probe)
    # processes sharing the scratch (regress workers, cells) take turns in the build directory
    with exclusive_lock(out.with_name(f".{out.name}.lock"),
                        f"waiting for another build of {out.name} to finish"):
        forget_moved_cache(out, source)  # a scratch moved or copied elsewhere
        cache = out / CACHE
        if not (out / "build.ninja").is_file() or not cache.is_file() or recorded_path(
                cache, f"{SDIST_OPTION}:FILEPATH=") != sdist:
            _run(["cmake", "-S", str(source), "-B", str(out), "-G", "Ninja", *options,
                  f"-DNPU_MODEL_PYTHON={python_interpreter()}", f"-D{SDIST_OPTION}={sdist}"],
                 "cmake configure")
        target = "npu_model_probe" if probe else "npu_model_host"
        _run(["cmake", "--build", str(out), "--target", target], "cmake build")
        return keep_library(out / name, key)


class FeatureMap(ctypes.Structure):
    """npu_model_fmap: a feature map as an operation read or stored it (a U85 chain buffer:
    region -1 and its chain; a U85 transposed OFM: the stored shape, axes its permutation)."""

    _fields_ = [("region", ctypes.c_int), ("offset", ctypes.c_uint64),
                ("height", ctypes.c_int), ("width", ctypes.c_int), ("depth", ctypes.c_int),
                ("bytes", ctypes.c_int), ("height0", ctypes.c_int), ("width0", ctypes.c_int),
                ("nhcwb16", ctypes.c_int), ("stride_x", ctypes.c_int64),
                ("stride_y", ctypes.c_int64), ("stride_c", ctypes.c_int64),
                ("chain", ctypes.c_int), ("axes", ctypes.c_int * 3)]


class Operation(ctypes.Structure):
    """npu_model_operation: one NPU operation just run and its feature maps."""

    _fields_ = [("index", ctypes.c_int), ("code", ctypes.c_uint32), ("word", ctypes.c_uint32),
                ("name", ctypes.c_char_p), ("ofm", FeatureMap), ("ifm", FeatureMap),
                ("ifm2", FeatureMap)]


OBSERVER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Operation), ctypes.c_void_p)


@functools.lru_cache(maxsize=1)
def load_library() -> ctypes.CDLL:
    """The host build of the core (built on first use in this process)."""
    return bind(ctypes.CDLL(str(build_library())))


def bind(library: ctypes.CDLL) -> ctypes.CDLL:
    """A build of the core with its entry points typed (the host library, or the tests' probe
    library, which decodes weights in the firmware's blocks)."""
    invoke = library.npu_model_invoke
    invoke.restype = ctypes.c_int
    invoke.argtypes = [ctypes.POINTER(NpuConfig), ctypes.c_void_p, ctypes.c_size_t,
                       ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_size_t),
                       ctypes.c_int, ctypes.POINTER(ModelStatus)]
    library.npu_model_observe.restype = None
    library.npu_model_observe.argtypes = [OBSERVER, ctypes.c_void_p]
    return library
