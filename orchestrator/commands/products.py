"""`invoke products`: the product cache as a table (or JSON), and its bounded clean-up."""

from __future__ import annotations

import time
from pathlib import Path

from orchestrator.aot.product_cache import (
    LOWERING,
    CachedProduct,
    clean,
    list_cache,
    total_size,
)
from orchestrator.foundation.cache_check import RECORD, scan
from orchestrator.foundation.cli import print_json
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch, user_cache
from orchestrator.options.products import ProductsTask
from orchestrator.runner.runtime import RUNTIME_DIR
from orchestrator.toolsets.environment import TOOLSETS_DIR


def human_size(size: int) -> str:
    """'3.2 MB' (powers of 1024)."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def human_age(seconds: float) -> str:
    """'42 s', '7 min', '3.5 h', '2.0 d'."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} d"


def _entry_line(entry: CachedProduct, now: float) -> str:
    return (f"{human_size(entry.size):>9}  made {human_age(now - entry.created)} ago, used "
            f"{human_age(now - entry.used)} ago{'  (in use)' if entry.in_use else ''}")


def table_lines(entries: list[CachedProduct], now: float) -> list[str]:
    """Per lowering a heading (kept or not, its size, its configurations' total), then one line
    per configuration's product: target, size, age, last use, key, whether a job holds it."""
    lines = []
    lowerings = {e.key: e for e in entries if e.kind == LOWERING}
    products = [e for e in entries if e.kind != LOWERING]
    for key in sorted({*lowerings, *(p.lowering for p in products)}):
        group = sorted((p for p in products if p.lowering == key), key=lambda p: (-p.used, p.key))
        lowering = lowerings.get(key)
        kept = (f"{lowering.model}, lowered for {lowering.target}: "
                f"{_entry_line(lowering, now).strip()}" if lowering else "not kept")
        lines.append(f"lowering {key} ({kept}); {len(group)} configuration(s), "
                     f"{human_size(total_size(group))}")
        lines += [f"  {p.target:<18} {_entry_line(p, now)}  {p.key}" for p in group]
    return lines


def products_command(task: ProductsTask, json: bool = False, scratch_root: str | None = None
                     ) -> int:
    """List the cache; with --keep or --max-size, clean it first and say what went."""
    if task.dry_run and task.keep is None and task.max_size is None:
        raise OrchestratorError("--dry-run needs --keep or --max-size",
                                "invoke products --keep 20 --dry-run")
    models = scratch(scratch_root).models
    now = time.time()
    if task.verify:
        return _verify(models, json)
    if task.keep is None and task.max_size is None:
        products = list_cache(models)
        if json:
            print_json({"models": str(models), "entries": [p.as_json(now) for p in products],
                        "bytes": total_size(products)})
            return 0
        _print_listing(products, now, str(models))
        return 0
    report = clean(models, task.keep, task.max_size, task.dry_run)
    if json:
        print_json({"models": str(models), "dry_run": task.dry_run, **report.as_json(now)})
        return 0
    _print_listing(report.kept + report.skipped_in_use, now, str(models))
    verb = "would remove" if task.dry_run else "removed"
    freed = human_size(total_size(report.removed))
    print(f"{verb} {len(report.removed)} lowering(s) and product(s), {freed}"
          + "".join(f"\n  {verb}: {p.key}" for p in report.removed)
          + "".join(f"\n  kept, in use by a running job: {p.key}"
                    for p in report.skipped_in_use))
    return 0


def _recorded_children(folder: Path) -> list[Path]:
    return sorted(d for d in folder.iterdir() if (d / RECORD).is_file()) \
        if folder.is_dir() else []


def _verify(models: Path, json: bool) -> int:
    """Hash every recorded file of the cache (products, lowerings, toolset environments);
    damaged entries set aside (libraries of a runtime build removed). 1 when something was
    damaged."""
    toolsets = _recorded_children(models.parent / TOOLSETS_DIR)
    entries = [entry.directory for entry in list_cache(models)] + toolsets
    cache = user_cache()
    runtime = cache / RUNTIME_DIR if cache is not None else scratch().build
    builds = _recorded_children(runtime)
    found = scan(entries, builds)
    if json:
        print_json({"models": str(models), "runtime": str(runtime),
                    "checked": len(entries) + len(builds), "damaged": found})
    else:
        for line in found:
            print(line)
        print(f"checked {len(entries) - len(toolsets)} product(s) and lowering(s), "
              f"{len(toolsets)} toolset(s) and {len(builds)} runtime build(s): "
              f"{len(found) or 'no'} damaged")
    return 1 if found else 0


def _print_listing(products: list[CachedProduct], now: float, where: str) -> None:
    for line in table_lines(products, now):
        print(line)
    kept = sum(1 for p in products if p.kind == LOWERING)
    configurations = len(products) - kept
    print(f"{configurations} product(s), {kept} lowering(s) kept, "
          f"{human_size(total_size(products))} in {where}")
