"""Everything the tool needs, checked: one Requirement per component, with the fix for each problem
(`invoke doctor` prints them: orchestrator.commands.doctor)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterable
from importlib import metadata

from orchestrator.foundation import hosttools
from orchestrator.foundation.doctor_model import Requirement, State
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.pins import load_pins
from orchestrator.targets import Catalogue, Target

EVERY_TARGET = ("*",)
MIN_FREE_BYTES = 10 * 2**30          # ExecuTorch sources + runtime builds + toolchain
MIN_QEMU = (7, 0)                    # mps3-an547 with MVE
CORE_PACKAGES = ("invoke", "requests", "rich", "jsonschema")  # cmake, ninja: tool rows
AOT_INSTALL = "pip install torch=={torch} && pip install -e '.[aot]'"


def python_package_check(name: str, pinned: str | None, fix: str) -> Requirement:
    """Is a Python distribution installed (at the pinned version, when pinned)?"""
    try:
        version = metadata.version(name)
    except metadata.PackageNotFoundError:
        return Requirement(name, State.MISSING, fix=fix, needed_by=EVERY_TARGET, category="python")
    base = version.split("+", 1)[0]
    state = State.OK if pinned is None or base == pinned else State.WRONG_VERSION
    detail = "" if state is State.OK else f"pinned {pinned}"
    return Requirement(name, state, found=metadata.distribution(name).locate_file("").__str__(),
                       version=version, fix="" if state is State.OK else fix,
                       needed_by=EVERY_TARGET, detail=detail, category="python")


def python_checks() -> list[Requirement]:
    """Core packages and the pinned AOT stack (torch, executorch, Vela, TOSA tools)."""
    pins = load_pins()["python"]
    aot_fix = AOT_INSTALL.format(torch=pins["torch"])
    checks = [python_package_check(name, None, "pip install -e .") for name in CORE_PACKAGES]
    checks += [python_package_check(name, version, aot_fix) for name, version in pins.items()]
    return checks


def _tool_check(name: str, locate: Callable[[], object], minimum: tuple[int, ...],
                needed_by: tuple[str, ...], category: str) -> Requirement:
    try:
        path = locate()
    except OrchestratorError as error:
        return Requirement(name, State.MISSING, fix=error.next_step or "", needed_by=needed_by,
                           detail=error.cause, category=category)
    version = hosttools.tool_version(path)  # type: ignore[arg-type]
    if hosttools.version_tuple(version) < minimum:
        wanted = ".".join(map(str, minimum))
        return Requirement(name, State.WRONG_VERSION, found=str(path), version=version,
                           fix=f"install {name} >= {wanted}", needed_by=needed_by,
                           detail=f"need >= {wanted}", category=category)
    return Requirement(name, State.OK, found=str(path), version=version, needed_by=needed_by,
                       category=category)


def host_tool_checks(catalogue: Catalogue) -> list[Requirement]:
    """cmake and ninja (from PyPI) and QEMU (from the OS)."""
    qemu_targets = tuple(t.name for t in catalogue if t.simulator("qemu"))
    return [
        _tool_check("cmake", hosttools.cmake_binary, (3, 24), EVERY_TARGET, "tool"),
        _tool_check("ninja", hosttools.ninja_binary, (1, 10), EVERY_TARGET, "tool"),
        _tool_check("qemu", hosttools.qemu_binary, MIN_QEMU, qemu_targets, "simulator"),
    ]


def disk_check(tree: Scratch) -> Requirement:
    """Free space where scratch/ lives."""
    probe = tree.root
    while not probe.exists():
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    state = State.OK if free >= MIN_FREE_BYTES else State.UNUSABLE
    return Requirement("scratch disk space", state, found=str(tree.root),
                       version=f"{free / 2**30:.1f} GiB free",
                       fix="" if state is State.OK else f"free space under {probe} (need 10 GiB)",
                       needed_by=EVERY_TARGET, category="disk")


def collect_checks(tree: Scratch, catalogue: Catalogue) -> list[Requirement]:
    """Every check, in display order."""
    from orchestrator.setup.checks import setup_checks

    checks = python_checks() + host_tool_checks(catalogue)
    checks += setup_checks(tree, catalogue.names())
    checks.append(disk_check(tree))
    return checks


def _needs(check: Requirement, target: str | None) -> bool:
    return target is None and "*" in check.needed_by or target is not None and (
        "*" in check.needed_by or target in check.needed_by)


def blocking_problems(checks: Iterable[Requirement], target: Target | None) -> list[Requirement]:
    """Checks that stop `target` (or, with no target, the tool itself) from working.

    A target's simulators are alternatives: it is blocked only when none of them works.
    """
    name = target.name if target else None
    checks = list(checks)
    problems = [c for c in checks if not c.ok and c.category != "simulator" and _needs(c, name)]
    if target is not None:
        simulators = [c for c in checks if c.category == "simulator" and _needs(c, name)]
        if simulators and not any(c.ok for c in simulators):
            problems += simulators
    return problems
