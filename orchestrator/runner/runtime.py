"""Build the ExecuTorch runtime libraries with ExecuTorch's own CMake, once per
(cpu, NPU config, build type, kernel set), cached under scratch/build/runtime-<key>/."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from orchestrator.errors import OrchestratorError
from orchestrator.hosttools import cmake_binary, ninja_binary
from orchestrator.paths import Scratch, repo_root
from orchestrator.runner.sources import RuntimeSources

RUNTIME_PROJECT = repo_root() / "firmware" / "apps" / "runner" / "runtime"
TOOLCHAIN_FILE = repo_root() / "firmware" / "cmake" / "arm-none-eabi-gcc.cmake"
STAMP = "orchestrator-runtime.json"
LIBS_FILE = "runtime-libs.cmake"


@dataclass(frozen=True)
class Toolchain:
    """Absolute compiler paths (from the setup lock) and the -mcpu GCC gets."""

    gcc: Path
    gxx: Path
    gcc_cpu: str


@dataclass(frozen=True)
class RuntimeConfig:
    """What makes one runtime build different from another."""

    gcc_cpu: str
    npu_config: str          # "none" for CPU-only
    build_type: str
    kernel_set: str
    ops: tuple[str, ...] | str

    @property
    def name(self) -> str:
        return f"{self.gcc_cpu}-{self.npu_config}-{self.build_type.lower()}-{self.kernel_set}"


def flatc_from_wheel() -> Path | None:
    """The host flatc the executorch wheel ships (data/bin/flatc), if present."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("executorch")
    except (ImportError, ValueError):
        return None
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "data" / "bin" / "flatc"
        if candidate.is_file():
            return candidate
    return None


def configure_args(config: RuntimeConfig, sources: RuntimeSources, toolchain: Toolchain,
                   build_dir: Path) -> list[str]:
    """The cmake configure command line for one runtime build."""
    ops = "ALL" if config.ops == "ALL" else ";".join(config.ops)
    flatc = flatc_from_wheel()
    args = [str(cmake_binary()), "-S", str(RUNTIME_PROJECT), "-B", str(build_dir), "-G", "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={ninja_binary()}",
            f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN_FILE}",
            f"-DEOR_GCC={toolchain.gcc}", f"-DEOR_GXX={toolchain.gxx}",
            f"-DEOR_CPU={toolchain.gcc_cpu}",
            f"-DCMAKE_BUILD_TYPE={config.build_type}",
            f"-DEXECUTORCH_ROOT={sources.executorch}",
            f"-DCMSIS_NN_PATH={sources.cmsis_nn}",
            f"-DET_KERNEL_OPS={ops}",
            "-DCMAKE_POLICY_VERSION_MINIMUM=3.5"]
    if flatc:
        args.append(f"-DFLATC_EXECUTABLE={flatc}")
    else:
        args.append("-DFLATC_EXECUTABLE=flatc")
    if config.npu_config != "none":
        if sources.ethosu_driver is None or sources.cmsis is None:
            raise OrchestratorError(f"{config.npu_config} needs the Ethos-U core driver and CMSIS "
                                    "sources", "invoke setup --only sources")
        args += [f"-DETHOSU_DRIVER_PATH={sources.ethosu_driver}",
                 f"-DCMSIS_PATH={sources.cmsis}",
                 f"-DETHOSU_TARGET_NPU_CONFIG={config.npu_config}"]
    return args


def runtime_key(config: RuntimeConfig, sources: RuntimeSources, toolchain: Toolchain) -> str:
    """Directory name: readable config plus a digest of everything that feeds configure."""
    recipe = {"config": asdict(config), "sources": {k: str(v) for k, v in asdict(sources).items()},
              "gcc": str(toolchain.gcc), "project": _project_digest()}
    digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:10]
    return f"runtime-{config.name}-{digest}"


def _project_digest() -> str:
    return hashlib.sha256((RUNTIME_PROJECT / "CMakeLists.txt").read_bytes()).hexdigest()[:16]


@dataclass(frozen=True)
class RuntimeBuild:
    """A built runtime: its directory, the generated link manifest and what it cost."""

    build_dir: Path
    libs_file: Path
    configured: bool
    seconds: float


def build_runtime(scratch: Scratch, config: RuntimeConfig, sources: RuntimeSources,
                  toolchain: Toolchain, jobs: int = 2) -> RuntimeBuild:
    """Configure (if the recipe changed) and build the runtime libraries incrementally."""
    build_dir = scratch.build / runtime_key(config, sources, toolchain)
    started = time.monotonic()
    args = configure_args(config, sources, toolchain, build_dir)
    stamp = build_dir / STAMP
    configured = False
    if not stamp.is_file() or json.loads(stamp.read_text()) != args:
        build_dir.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        run_logged(args, build_dir / "configure.log", "configure the ExecuTorch runtime")
        stamp.write_text(json.dumps(args))
        configured = True
    run_logged([str(cmake_binary()), "--build", str(build_dir), "--target", "runtime_libs",
                "-j", str(jobs)], build_dir / "build.log", "build the ExecuTorch runtime")
    return RuntimeBuild(build_dir, build_dir / LIBS_FILE, configured,
                        time.monotonic() - started)


def run_logged(args: list[str], log: Path, what: str) -> None:
    """Run a build command with output to `log`; a failure names the first error line."""
    with log.open("w") as handle:
        handle.write(" ".join(args) + "\n")
        handle.flush()
        result = subprocess.run(args, stdout=handle, stderr=subprocess.STDOUT, check=False)
    if result.returncode != 0:
        raise OrchestratorError(f"could not {what}: {first_error(log)} (full log: {log})",
                                f"fix the cause, then re-run; see {log}")


def first_error(log: Path) -> str:
    """The first line of a build log that looks like an error (or the last line)."""
    lines = log.read_text(errors="replace").splitlines()
    for line in lines:
        if "error" in line.lower() and "-Werror" not in line and "Wno-error" not in line:
            return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "no output"
