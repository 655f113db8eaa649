"""Build the ExecuTorch runtime libraries with ExecuTorch's own CMake, once per
(cpu, build type, kernel set), cached under <user cache>/runtime/runtime-<key>/ (shared by every
scratch and clone of the user: paths.user_cache; scratch/build with ETHOSU_ORCH_CACHE_DIR=0),
and once more with the devtools event tracer when a run profiles. Every platform and NPU
configuration links the same build; the runner app compiles the Ethos-U delegate and driver for
its NPU configuration itself. A growing ("model") kernel set keeps one build directory whose op
list grows: a new op reconfigures and compiles that op's source only."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from orchestrator.firmware.build.toolchain import (
    Compilers,
    build_environment,
    compiler_launcher,
    prefix_maps,
    toolchain_definitions,
)
from orchestrator.foundation.cache_check import (
    has_record,
    record_files,
    remove_damaged_outputs,
)
from orchestrator.foundation.cmake_cache import forget_moved_cache
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.hosttools import cmake_binary, ninja_binary
from orchestrator.foundation.paths import Scratch, user_cache
from orchestrator.foundation.progress import run_step
from orchestrator.runner.host_tools import prebuilt_flatc
from orchestrator.runner.kernel_set import (
    cmake_ops,
    missing_from,
    portable_kernels,
    read_grown,
    selected_ops,
    write_grown,
)
from orchestrator.runner.runtime_recipe import (
    PROJECT_FILE,
    Recipe,
    compiler_identity,
    staged_recipe,
)
from orchestrator.runner.sources import RuntimeSources
from orchestrator.setup.filelock import exclusive_lock
from orchestrator.targets.runner_data import ALL, MODEL

STAMP = "orchestrator-runtime.json"
RUNTIME_DIR = "runtime"   # under the user cache
RECIPE = 3   # bump when an old runtime build directory can no longer be reused
LIBS_FILE = "runtime-libs.cmake"
Toolchain = Compilers   # the runtime is compiled exactly as the firmware (toolchains/)


@dataclass(frozen=True)
class RuntimeConfig:
    """What makes one runtime build different from another. `ops` is the kernel set's list
    ("ALL", "MODEL" or ops); `model_ops` are the operators of the model about to run."""

    gcc_cpu: str
    build_type: str
    kernel_set: str
    ops: tuple[str, ...] | str
    model_ops: tuple[str, ...] = ()
    event_tracer: bool = False   # the devtools event tracer (ETDump): a build of its own

    @property
    def name(self) -> str:
        traced = "-etdump" if self.event_tracer else ""
        return f"{self.gcc_cpu}-{self.build_type.lower()}-{self.kernel_set}{traced}"


def configure_args(config: RuntimeConfig, sources: RuntimeSources, toolchain: Toolchain,
                   build_dir: Path, kernel_sources: tuple[str, ...] = (),
                   recipe: Recipe | None = None) -> list[str]:
    """The cmake configure command line for one runtime build (`config.ops` resolved); from
    the checkout's project unless `recipe` names the user cache's copies."""
    recipe = recipe or staged_recipe(None)
    trees = {"executorch": sources.executorch, "cmsis-nn": sources.cmsis_nn}
    maps = prefix_maps(build_dir.parent.parent, build_dir, trees, checkout=False)
    definitions = {
        **toolchain_definitions(toolchain, maps, compiler_launcher(), recipe.toolchain_file),
        "CMAKE_MAKE_PROGRAM": str(ninja_binary()),
        "CMAKE_BUILD_TYPE": config.build_type,
        "EXECUTORCH_ROOT": str(sources.executorch),
        "CMSIS_NN_PATH": str(sources.cmsis_nn),
        "ET_KERNEL_OPS": cmake_ops(config.ops),
        "ET_KERNEL_SOURCES": ";".join(kernel_sources),
        "EOR_HOST_FLATC": str(prebuilt_flatc(sources.executorch) or ""),
        # flatcc/gflags still declare CMake < 3.5; pip's CMake 4 needs this to accept them
        "CMAKE_POLICY_VERSION_MINIMUM": "3.5",
        **({"EOR_EVENT_TRACER": "ON"} if config.event_tracer else {}),
    }
    return [str(cmake_binary()), "-S", str(recipe.project), "-B", str(build_dir),
            "-G", "Ninja", *(f"-D{name}={value}" for name, value in definitions.items())]


def runtime_key(config: RuntimeConfig, sources: RuntimeSources, toolchain: Toolchain,
                recipe_digest: str = "") -> str:
    """Directory name: readable config plus a digest of everything that feeds configure: the
    config, the source trees, the compiler (path and binary), the launcher and the recipe's
    contents (a growing set's ops are not part of it: it grows in place; the checkout's path is
    not either: every clone with the same recipe shares the build)."""
    fixed = replace(config, model_ops=(), ops=MODEL if config.ops == MODEL else config.ops)
    described = asdict(fixed)
    if not config.event_tracer:   # untraced builds keep the keys they had before the tracer
        del described["event_tracer"]
    recipe = {"config": described, "executorch": str(sources.executorch),
              "cmsis_nn": str(sources.cmsis_nn), "gcc": str(toolchain.gcc), "recipe": RECIPE,
              "launcher": str(compiler_launcher() or "")}
    if recipe_digest:   # the user-cache layout; scratch builds keep their keys
        recipe.update({"project": recipe_digest, "compiler": compiler_identity(toolchain.gcc)})
    digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:10]
    return f"runtime-{config.name}-{digest}"


def _stamp(args: list[str], recipe: Recipe) -> dict[str, object]:
    """What must be unchanged to skip configure: the arguments and the wrapper project."""
    project = hashlib.sha256((recipe.project / PROJECT_FILE).read_bytes()).hexdigest()
    return {"args": args, "project": project}


@dataclass(frozen=True)
class RuntimeBuild:
    """A built runtime: its directory, the generated link manifest, the portable ops it
    registers ("ALL" or the list) and what it cost."""

    build_dir: Path
    libs_file: Path
    configured: bool
    seconds: float
    kernel_set: str = "all"
    ops: tuple[str, ...] | str = ALL

    def kernels_json(self) -> dict[str, object]:
        """The kernel set in use, for the result and the build manifest."""
        return {"kernel_set": self.kernel_set,
                "portable_ops": self.ops if self.ops == ALL else list(self.ops)}


def resolve_ops(config: RuntimeConfig, sources: RuntimeSources,
                build_dir: Path) -> tuple[tuple[str, ...] | str, tuple[str, ...]]:
    """The ops this build registers and the kernel sources it compiles."""
    if config.ops == ALL:
        return ALL, ()
    table = portable_kernels(sources.executorch)
    ops = selected_ops(config.ops, config.model_ops, read_grown(build_dir), table)
    assert not isinstance(ops, str)
    missing = missing_from(ops, config.model_ops, table)
    if missing:
        raise OrchestratorError(
            f"the model needs portable kernels that kernel set {config.kernel_set} does not "
            f"have: {', '.join(missing)}",
            "invoke run --kernel-set model (builds the model's kernels), or add them to "
            f"kernel_sets.{config.kernel_set} in orchestrator/data/runner.toml")
    return ops, table.sources(ops)


def build_runtime(scratch: Scratch, config: RuntimeConfig, sources: RuntimeSources,
                  toolchain: Toolchain, jobs: int = 2) -> RuntimeBuild:
    """Configure (if the recipe or the op set changed) and build the runtime incrementally;
    processes sharing a scratch (clones, regress workers) take turns on one build directory:
    two CMake configures in one directory corrupt its cache. The build lives in the user cache
    (every scratch and clone of the user shares it) unless ETHOSU_ORCH_CACHE_DIR=0."""
    cache = user_cache()
    recipe = staged_recipe(cache)
    root = cache / RUNTIME_DIR if cache is not None else scratch.build
    key = runtime_key(config, sources, toolchain, recipe.digest if cache is not None else "")
    with writing(root):
        root.mkdir(parents=True, exist_ok=True)
    with exclusive_lock(root / f".{key}.lock", f"waiting for another build of {key} to finish"):
        return _build_runtime_locked(root / key, config, sources, toolchain, jobs, recipe)


def _build_runtime_locked(build_dir: Path, config: RuntimeConfig, sources: RuntimeSources,
                          toolchain: Toolchain, jobs: int, recipe: Recipe) -> RuntimeBuild:
    """build_runtime's work, with the build directory's lock held."""
    started = time.monotonic()
    remove_damaged_outputs(build_dir)   # a library that differs from its record is rebuilt
    ops, kernel_sources = resolve_ops(config, sources, build_dir)
    args = configure_args(replace(config, ops=ops), sources, toolchain, build_dir,
                          kernel_sources, recipe)
    env = build_environment(compiler_launcher(), jobs)
    stamp = build_dir / STAMP
    configured = False
    wanted = _stamp(args, recipe)
    if not stamp.is_file() or json.loads(stamp.read_text()) != wanted:
        build_dir.mkdir(parents=True, exist_ok=True)
        stamp.unlink(missing_ok=True)
        forget_moved_cache(build_dir, recipe.project)
        run_step(args, build_dir / "configure.log", "configure the ExecuTorch runtime", env)
        stamp.write_text(json.dumps(wanted))
        configured = True
    # ninja itself, not `cmake --build` (which only starts it): the same incremental build
    # (its graph re-runs CMake when a CMake input changed) without a second process start
    built = run_step([str(ninja_binary()), "-C", str(build_dir), "runtime_libs", f"-j{jobs}"],
                     build_dir / "build.log", "build the ExecuTorch runtime", env)
    if config.ops == MODEL:
        assert not isinstance(ops, str)
        write_grown(build_dir, ops, kernel_sources)
    if configured or not built.changed_nothing or not has_record(build_dir):
        # a build that changed nothing keeps the record the check above found sound (making
        # it again walks the whole build tree for its libraries: ~30 ms of a warm run)
        record_files(build_dir, sorted(build_dir.rglob("*.a")))
    return RuntimeBuild(build_dir, build_dir / LIBS_FILE, configured,
                        time.monotonic() - started, config.kernel_set, ops)
