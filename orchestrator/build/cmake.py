"""Run CMake (configure only when its inputs changed) and Ninja (incremental) for a build."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from orchestrator.build.cmake_cache import forget_moved_cache
from orchestrator.build.config import BuildConfig
from orchestrator.build.linker import find_overflows, first_error
from orchestrator.build.tools import BuildTools
from orchestrator.errors import OrchestratorError
from orchestrator.paths import repo_root
from orchestrator.write_faults import writing

CONFIGURE_STAMP = "eor-configure.json"
NO_WORK = "ninja: no work to do."


@dataclass(frozen=True)
class CompileOutcome:
    """What Ninja did: whether anything was rebuilt, and its output."""

    rebuilt: bool
    output: str


def firmware_source() -> Path:
    """The firmware/ CMake project shipped with this checkout."""
    source = repo_root() / "firmware"
    if not (source / "CMakeLists.txt").is_file():
        raise OrchestratorError(f"the firmware sources are missing at {source}",
                                "run from a checkout of ethosu-orchestrator")
    return source


def configure_definitions(config: BuildConfig, tools: BuildTools,
                          build_dir: Path) -> list[str]:
    """The cmake arguments (after the binary) that configure `config` into `build_dir`."""
    source = firmware_source()
    definitions = {
        "CMAKE_TOOLCHAIN_FILE": str(source / "cmake" / "arm-none-eabi-gcc.cmake"),
        "CMAKE_MAKE_PROGRAM": str(tools.ninja),
        "EOR_GCC": str(tools.gcc),
        "EOR_GXX": str(tools.gxx),
        **config.definitions(),
    }
    return ["-G", "Ninja", "-S", str(source), "-B", str(build_dir),
            *(f"-D{name}={value}" for name, value in definitions.items())]


def _run(command: list[str], log: Path) -> subprocess.CompletedProcess[str]:
    """Run a build command with a plain environment; keep its output in `log`."""
    env = {key: value for key, value in os.environ.items()
           if key in ("PATH", "HOME", "TMPDIR", "LANG", "LC_ALL")}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    with writing(log):
        log.write_text(done.stdout + done.stderr)
    return done


def configure(config: BuildConfig, tools: BuildTools, build_dir: Path) -> bool:
    """Configure unless the same arguments already produced build.ninja; True if it ran."""
    arguments = configure_definitions(config, tools, build_dir)
    stamp = build_dir / CONFIGURE_STAMP
    if (build_dir / "build.ninja").is_file() and stamp.is_file():
        if json.loads(stamp.read_text()) == arguments:
            return False
    with writing(build_dir):
        build_dir.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
    forget_moved_cache(build_dir)
    done = _run([str(tools.cmake), *arguments], build_dir / "configure.log")
    if done.returncode != 0:
        raise OrchestratorError(
            f"configuring {config.app} for {config.platform.name} failed: "
            f"{first_error(done.stdout + done.stderr)}",
            f"read {build_dir / 'configure.log'}")
    stamp.write_text(json.dumps(arguments, indent=1))
    return True


def compile_firmware(config: BuildConfig, tools: BuildTools, build_dir: Path,
                     jobs: int = 2) -> CompileOutcome:
    """Build incrementally with Ninja; a region overflow becomes a one-line error."""
    done = _run([str(tools.ninja), "-C", str(build_dir), f"-j{jobs}"], build_dir / "build.log")
    output = done.stdout + done.stderr
    if done.returncode == 0:
        return CompileOutcome(rebuilt=NO_WORK not in output, output=output)
    overflows = find_overflows(output)
    what = f"{config.app} for {config.platform.name}"
    if overflows:
        details = "; ".join(overflow.describe() for overflow in overflows)
        raise OrchestratorError(
            f"{what} does not fit in memory: {details}",
            f"shrink it or change the layout (invoke build --option EOR_STACK_SIZE=... / "
            f"EOR_HEAP_SIZE=...); full log: {build_dir / 'build.log'}")
    raise OrchestratorError(f"building {what} failed: {first_error(output)}",
                            f"read {build_dir / 'build.log'}")
