"""Build the ExecuTorch runtime libraries with ExecuTorch's own CMake, once per
(cpu, build type, kernel set), cached under scratch/build/runtime-<key>/. Every platform and
NPU configuration links the same build; the runner app compiles the Ethos-U delegate and
driver for its NPU configuration itself."""

from __future__ import annotations

import hashlib
import json
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from orchestrator.build.cmake_cache import forget_moved_cache
from orchestrator.errors import OrchestratorError
from orchestrator.hosttools import cmake_binary, ninja_binary
from orchestrator.paths import Scratch, repo_root
from orchestrator.runner.sources import RuntimeSources

RUNTIME_PROJECT = repo_root() / "firmware" / "apps" / "runner" / "runtime"
TOOLCHAIN_FILE = repo_root() / "firmware" / "cmake" / "arm-none-eabi-gcc.cmake"
STAMP = "orchestrator-runtime.json"
RECIPE = 1   # bump when an old runtime build directory can no longer be reused
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
    build_type: str
    kernel_set: str
    ops: tuple[str, ...] | str

    @property
    def name(self) -> str:
        return f"{self.gcc_cpu}-{self.build_type.lower()}-{self.kernel_set}"


def configure_args(config: RuntimeConfig, sources: RuntimeSources, toolchain: Toolchain,
                   build_dir: Path) -> list[str]:
    """The cmake configure command line for one runtime build."""
    ops = "ALL" if config.ops == "ALL" else ";".join(config.ops)
    args = [str(cmake_binary()), "-S", str(RUNTIME_PROJECT), "-B", str(build_dir), "-G", "Ninja",
            f"-DCMAKE_MAKE_PROGRAM={ninja_binary()}",
            f"-DCMAKE_TOOLCHAIN_FILE={TOOLCHAIN_FILE}",
            f"-DEOR_GCC={toolchain.gcc}", f"-DEOR_GXX={toolchain.gxx}",
            f"-DEOR_CPU={toolchain.gcc_cpu}",
            f"-DCMAKE_BUILD_TYPE={config.build_type}",
            f"-DEXECUTORCH_ROOT={sources.executorch}",
            f"-DCMSIS_NN_PATH={sources.cmsis_nn}",
            f"-DET_KERNEL_OPS={ops}",
            # flatcc/gflags still declare CMake < 3.5; pip's CMake 4 needs this to accept them
            "-DCMAKE_POLICY_VERSION_MINIMUM=3.5"]
    return args


def runtime_key(config: RuntimeConfig, sources: RuntimeSources, toolchain: Toolchain) -> str:
    """Directory name: readable config plus a digest of everything that feeds configure."""
    # The wrapper project's path too: CMake refuses to reuse a build directory configured from
    # another checkout's source tree (worktrees sharing one build scratch).
    recipe = {"config": asdict(config), "executorch": str(sources.executorch),
              "cmsis_nn": str(sources.cmsis_nn), "gcc": str(toolchain.gcc), "recipe": RECIPE,
              "project": str(RUNTIME_PROJECT)}
    digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:10]
    return f"runtime-{config.name}-{digest}"


def _stamp(args: list[str]) -> dict[str, object]:
    """What must be unchanged to skip configure: the arguments and the wrapper project."""
    project = hashlib.sha256((RUNTIME_PROJECT / "CMakeLists.txt").read_bytes()).hexdigest()
    return {"args": args, "project": project}


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
    wanted = _stamp(args)
    if not stamp.is_file() or json.loads(stamp.read_text()) != wanted:
        build_dir.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        forget_moved_cache(build_dir)
        run_logged(args, build_dir / "configure.log", "configure the ExecuTorch runtime")
        stamp.write_text(json.dumps(wanted))
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
