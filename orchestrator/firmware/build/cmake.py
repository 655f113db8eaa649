"""Run CMake (configure only when its inputs changed) and Ninja (incremental) for a build."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from orchestrator.firmware.build.config import BuildConfig
from orchestrator.firmware.build.toolchain import (
    Compilers,
    build_environment,
    compiler_launcher,
    prefix_maps,
    toolchain_definitions,
)
from orchestrator.firmware.build.tools import BuildTools
from orchestrator.foundation.cmake_cache import forget_moved_cache
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.paths import repo_root
from orchestrator.foundation.progress import CommandRun, stream_command

CONFIGURE_STAMP = "eor-configure.json"


@dataclass(frozen=True)
class NinjaOutcome:
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
    """The cmake arguments (after the binary) that configure `config` into `build_dir`
    (scratch/build/<key>: the scratch root is two levels up)."""
    source = firmware_source()
    maps = prefix_maps(build_dir.parent.parent, build_dir,
                       {name: Path(path) for name, path in config.trees})
    compilers = Compilers(tools.gcc, tools.gxx, config.platform.gcc_cpu,
                          config.platform.float_abi)
    definitions = {
        **toolchain_definitions(compilers, maps, compiler_launcher()),
        "CMAKE_MAKE_PROGRAM": str(tools.ninja),
        **config.definitions(),
    }
    return ["-G", "Ninja", "-S", str(source), "-B", str(build_dir),
            *(f"-D{name}={value}" for name, value in definitions.items())]


def _run(command: list[str], log: Path, what: str) -> CommandRun:
    """Run a build command (a progress step) with a plain environment; output in `log`."""
    return stream_command(command, log, what, build_environment(compiler_launcher()))


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
    forget_moved_cache(build_dir, firmware_source())
    done = _run([str(tools.cmake), *arguments], build_dir / "configure.log",
                f"configure {config.key}")
    if done.returncode != 0:
        from orchestrator.firmware.build.linker import first_error

        raise OrchestratorError(
            f"configuring {config.app} for {config.platform.name} failed: "
            f"{first_error(done.output)}",
            f"read {build_dir / 'configure.log'}")
    stamp.write_text(json.dumps(arguments, indent=1))
    return True


def compile_firmware(config: BuildConfig, tools: BuildTools, build_dir: Path,
                     jobs: int = 2) -> NinjaOutcome:
    """Build incrementally with Ninja; a region overflow becomes a one-line error."""
    done = _run([str(tools.ninja), "-C", str(build_dir), f"-j{jobs}"], build_dir / "build.log",
                f"build {config.key}")
    output = done.output
    if done.returncode == 0:
        return NinjaOutcome(rebuilt=not done.changed_nothing, output=output)
    from orchestrator.firmware.build.linker import find_overflows, first_error  # failures only

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
