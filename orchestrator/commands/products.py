"""`invoke products`: the product cache as a table (or JSON), and its bounded clean-up."""

from __future__ import annotations

import time

from orchestrator.aot.product_cache import CachedProduct, clean, list_products, total_size
from orchestrator.cli import print_json
from orchestrator.errors import OrchestratorError
from orchestrator.options.products import ProductsTask
from orchestrator.paths import scratch


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


def table_lines(products: list[CachedProduct], now: float) -> list[str]:
    """Per lowering a heading (its configurations and their total size), then one line per
    configuration's product: target, size, age, last use, key, whether a job holds it."""
    lines = []
    for lowering in sorted({p.lowering for p in products}):
        group = sorted((p for p in products if p.lowering == lowering),
                       key=lambda p: (-p.used, p.key))
        lines.append(f"{lowering}: {len(group)} configuration(s), "
                     f"{human_size(total_size(group))}")
        lines += [f"  {p.target:<18} {human_size(p.size):>9}  made {human_age(now - p.created)}"
                  f" ago, used {human_age(now - p.used)} ago  {p.key}"
                  f"{'  (in use)' if p.in_use else ''}" for p in group]
    return lines


def products_command(task: ProductsTask, json: bool = False, scratch_root: str | None = None
                     ) -> int:
    """List the cache; with --keep or --max-size, clean it first and say what went."""
    if task.dry_run and task.keep is None and task.max_size is None:
        raise OrchestratorError("--dry-run needs --keep or --max-size",
                                "invoke products --keep 20 --dry-run")
    models = scratch(scratch_root).models
    now = time.time()
    if task.keep is None and task.max_size is None:
        products = list_products(models)
        if json:
            print_json({"models": str(models), "products": [p.as_json(now) for p in products],
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
    print(f"{verb} {len(report.removed)} product(s), {freed}"
          + "".join(f"\n  {verb}: {p.key}" for p in report.removed)
          + "".join(f"\n  kept, in use by a running job: {p.key}"
                    for p in report.skipped_in_use))
    return 0


def _print_listing(products: list[CachedProduct], now: float, where: str) -> None:
    for line in table_lines(products, now):
        print(line)
    lowerings = len({p.lowering for p in products})
    print(f"{len(products)} product(s) of {lowerings} lowering(s), "
          f"{human_size(total_size(products))} in {where}")
