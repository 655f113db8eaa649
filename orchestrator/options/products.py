"""The options of `invoke products`: list the product cache, and bound it."""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.options.fields import count, option, size


@dataclass(frozen=True)
class ProductsTask:
    """`invoke products`: what scratch/models/ holds; --keep / --max-size clean it up (never a
    product a running job holds)."""

    keep: int | None = option(None, "remove all but the N most recently used products",
                              parse=count, matrix=False)
    max_size: int | None = option(None, "remove the least recently used products beyond this "
                                  "total size (e.g. 500M, 2G)", parse=size, matrix=False)
    dry_run: bool = option(False, "list what --keep / --max-size would remove; remove nothing",
                           matrix=False)
    verify: bool = option(False, "hash every file of every cached product, lowering and "
                          "runtime build against its record; set damaged ones aside",
                          matrix=False)
