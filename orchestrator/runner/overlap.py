"""The cold run's two long stages side by side: while the model compiles (the lowering and
Vela: mostly one Python thread), the runtime it will link builds in a thread of its own
(compiler processes under ninja), so a 2-core machine does both at once. The thread builds
the runtime's kernel set as it stands (a growing set without the model's ops, which only the
compiled program names); the runner build that follows adds the model's own ops, if any, to
the same build directory. Nothing is hidden: the seconds the runtime built during the compile
are reported as their own stage (runtime_during_compile_build)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch
from orchestrator.foundation.progress import detached_reporter, in_this_thread
from orchestrator.runner.firmware import RunnerOptions, prebuild_runtime
from orchestrator.targets.model import Target

if TYPE_CHECKING:
    from orchestrator.aot.products import Product

OVERLAP_STAGE = "runtime_during_compile"


class RuntimePrebuild(threading.Thread):
    """The runtime build running beside the compile; its error, if any, is kept (the runner
    build that follows meets it again and reports it the usual way)."""

    def __init__(self, build: Callable[[], object]) -> None:
        super().__init__(name="runtime-prebuild", daemon=True)
        self.build = build
        self.seconds = 0.0
        self.error: OrchestratorError | None = None
        # bound now: the compile about to start captures stderr into its log
        self.report = detached_reporter()

    def run(self) -> None:
        started = time.perf_counter()
        try:
            with in_this_thread(self.report):
                self.build()
        except OrchestratorError as error:
            self.error = error
        finally:
            self.seconds = time.perf_counter() - started


def compile_beside_runtime(compile_product: Callable[[], Product], cached: bool, work: Scratch,
                           target: Target, options: RunnerOptions,
                           sources: Mapping[str, Path] | None) -> tuple[Product, float | None]:
    """The compiled product, and the seconds the runtime built beside the compile (None: the
    product was cached, so nothing ran beside it)."""
    if cached:
        return compile_product(), None
    thread = RuntimePrebuild(lambda: prebuild_runtime(
        work, target, replace(options, model_ops=()), sources))
    thread.start()
    try:
        product = compile_product()
    finally:
        thread.join()
    return product, round(thread.seconds, 3)
