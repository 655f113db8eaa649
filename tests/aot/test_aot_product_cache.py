"""The product cache says what it holds (lowerings, their configurations, sizes, ages, leases)
and cleans itself within bounds (newest N, a size cap), never removing a product that a
running job (another process holding its lease) uses. Products here are directories in the
published layout (a manifest of this schema and a .pte of a chosen size): the cache reads
nothing else; the compile path's lease is checked with a real compile in
test_a_compiled_product_is_leased_by_the_process_that_compiled_it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.aot import api, product_cache
from orchestrator.aot import products as layout
from orchestrator.aot.lower import store as lowerings
from orchestrator.aot.product_cache import clean, hold, list_products, over_bounds
from orchestrator.commands.products import products_command, table_lines
from orchestrator.foundation.paths import scratch
from orchestrator.options.products import ProductsTask

HOLDER = """
import sys, time
from pathlib import Path
from orchestrator.aot.product_cache import hold
print("held" if hold(Path(sys.argv[1])) else "gone", flush=True)
time.sleep(60)
"""


def make_product(models: Path, key: str, target: str, size: int, age: float,
                 model: str = "mv2", lowering: str | None = None) -> Path:
    directory = models / key
    directory.mkdir(parents=True)
    (directory / layout.PTE).write_bytes(b"\0" * size)
    manifest = {"schema": layout.MANIFEST_SCHEMA, "target": target, "key": key,
                "model": {"name": model}, "options": {"quantize": "int8", "target": target}}
    if lowering:
        manifest["lowering"] = {"key": lowering, "lowered_for": target}
    layout.write_json(directory / layout.MANIFEST, manifest)
    stamp = time.time() - age
    os.utime(directory / layout.MANIFEST, (stamp, stamp))
    return directory


def make_lowering(models: Path, key: str, lowered_for: str, size: int, age: float) -> Path:
    directory = lowerings.lowered_root(models) / key
    directory.mkdir(parents=True)
    (directory / layout.PTE).write_bytes(b"\0" * size)
    layout.write_json(directory / lowerings.LOWERING_MANIFEST, {
        "schema": lowerings.LOWERING_SCHEMA, "key": key, "model": {"name": "mv2"},
        "lowered_for": lowered_for, "delegate_partitions": []})
    stamp = time.time() - age
    os.utime(directory / lowerings.LOWERING_MANIFEST, (stamp, stamp))
    return directory


@pytest.fixture(autouse=True)
def no_leases() -> Iterator[None]:
    yield
    product_cache.release_all()


@pytest.fixture
def models(tmp_path: Path) -> Path:
    """Three U85 configurations of one lowering and a CPU product, oldest last."""
    root = tmp_path / "scratch" / "models"
    make_product(root, "mv2_u85_128", "ethos-u85-128", 3000, age=10)
    make_product(root, "mv2_u85_256", "ethos-u85-256", 2000, age=100)
    make_product(root, "mv2_u85_512", "ethos-u85-512", 1000, age=1000)
    make_product(root, "add_m55", "cortex-m55", 500, age=5000, model="add")
    (root / ".mv2_u85_1024.abc123").mkdir()       # a staging directory: not a product
    return root


@pytest.fixture
def holder(models: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process (a running job) holding the lease of the oldest U85 product."""
    job = subprocess.Popen([sys.executable, "-c", HOLDER, str(models / "mv2_u85_512")],
                           stdout=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])})
    assert job.stdout is not None and job.stdout.readline().strip() == "held"
    yield job
    job.kill()
    job.wait()
    job.stdout.close()


def test_the_listing_groups_configurations_by_lowering_with_sizes_and_ages(models):
    listed = list_products(models)
    assert [p.key for p in listed] == ["mv2_u85_128", "mv2_u85_256", "mv2_u85_512", "add_m55"]
    assert {p.lowering for p in listed} == {"mv2 int8 ethos-u85", "add int8 cpu"}   # made
    # before compiles had two steps: grouped by what their lowering would have been
    first = listed[0]
    assert first.size > 3000 and first.target == "ethos-u85-128" and not first.in_use
    assert 5 < time.time() - first.created < 60


def test_a_lease_marks_a_product_used_and_in_use(models):
    assert hold(models / "mv2_u85_512")
    listed = {p.key: p for p in list_products(models)}
    assert listed["mv2_u85_512"].in_use
    assert time.time() - listed["mv2_u85_512"].used < 5
    assert list_products(models)[0].key == "mv2_u85_512"     # most recently used first


def test_keep_newest_removes_the_rest_but_never_what_a_running_job_holds(models, holder):
    long_ago = time.time() - 900                   # the job took its lease long ago
    os.utime(models / "mv2_u85_512" / product_cache.LEASE, (long_ago, long_ago))
    report = clean(models, keep=1)
    assert [p.key for p in report.removed] == ["mv2_u85_256", "add_m55"]
    assert [p.key for p in report.skipped_in_use] == ["mv2_u85_512"]
    assert sorted(p.name for p in models.iterdir()) == [".mv2_u85_1024.abc123", "mv2_u85_128",
                                                        "mv2_u85_512"]
    holder.kill()
    holder.wait()                                  # the job ended: its lease went with it
    assert [p.key for p in clean(models, keep=1).removed] == ["mv2_u85_512"]


def test_a_size_cap_keeps_the_most_recently_used_that_fit(models):
    listed = list_products(models)
    total = sum(p.size for p in listed[:2])
    assert [p.key for p in over_bounds(listed, None, total)] == ["mv2_u85_512", "add_m55"]
    report = clean(models, max_bytes=total, dry_run=True)
    assert len(report.removed) == 2 and (models / "add_m55").is_dir()    # dry run
    clean(models, max_bytes=total)
    assert [p.key for p in list_products(models)] == ["mv2_u85_128", "mv2_u85_256"]


def test_a_product_removed_meanwhile_is_a_cache_miss(models):
    clean(models, keep=0)
    assert not hold(models / "mv2_u85_128")
    assert list_products(models) == []


def test_the_task_prints_the_listing_and_the_clean_up_as_json(models, capsys):
    root = str(models.parent)
    assert products_command(ProductsTask(), json=True, scratch_root=root) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [p["key"] for p in listing["entries"]][:1] == ["mv2_u85_128"]
    assert listing["bytes"] == sum(p["bytes"] for p in listing["entries"])
    products_command(ProductsTask(keep=3), json=True, scratch_root=root)
    cleaned = json.loads(capsys.readouterr().out)
    assert [p["key"] for p in cleaned["removed"]] == ["add_m55"]
    assert cleaned["freed_bytes"] > 500
    products_command(ProductsTask(), scratch_root=root)
    text = capsys.readouterr().out
    assert "lowering mv2 int8 ethos-u85 (not kept); 3 configuration(s)" in text
    assert "3 product(s), 0 lowering(s) kept" in text


def test_lowerings_are_listed_with_their_configurations_and_kept_while_one_stays(tmp_path):
    models = tmp_path / "models"
    make_lowering(models, "mv2_tosa-cf_int8", "ethos-u85-128", 4000, age=300)
    make_lowering(models, "conv_tosa-cf_int8", "ethos-u85-128", 4000, age=200)
    make_product(models, "mv2_u85_128", "ethos-u85-128", 1000, age=300,
                 lowering="mv2_tosa-cf_int8")
    make_product(models, "mv2_u85_256", "ethos-u85-256", 1000, age=100,
                 lowering="mv2_tosa-cf_int8")
    entries = product_cache.list_cache(models)
    kinds = [(e.kind, e.key) for e in entries]
    assert kinds[0] == ("lowering", "mv2_tosa-cf_int8")     # used when its configuration was
    assert ("lowering", "conv_tosa-cf_int8") in kinds
    lines = "\n".join(table_lines(entries, time.time()))
    assert "lowering mv2_tosa-cf_int8 (mv2, lowered for ethos-u85-128:" in lines
    assert "2 configuration(s)" in lines and "lowering conv_tosa-cf_int8" in lines
    report = clean(models, keep=1)          # one configuration, one lowering of each kind
    assert sorted(e.key for e in report.removed) == ["conv_tosa-cf_int8", "mv2_u85_128"]
    assert (lowerings.lowered_root(models) / "mv2_tosa-cf_int8").is_dir()   # still needed
    clean(models, keep=0)
    assert product_cache.list_cache(models) == []


def test_a_compiled_product_and_its_lowering_are_leased_by_the_compiling_process(tmp_path):
    pytest.importorskip("executorch")
    where = scratch(tmp_path / "real").ensure()
    product = api.compile_model("add", "ethos-u85-128", scratch_root=where.root)
    other = api.compile_model("add", "ethos-u85-256", scratch_root=where.root)   # configured
    entries = product_cache.list_cache(where.models)
    assert {(e.kind, e.in_use) for e in entries} == {("lowering", True),
                                                      ("configuration", True)}
    report = clean(where.models, keep=0)
    assert sorted(e.key for e in report.skipped_in_use) == sorted(e.key for e in entries)
    assert product.pte.is_file() and other.pte.is_file()


def test_files_hard_linked_between_products_count_once(models):
    shared = models / "mv2_u85_128" / "reference.bin"
    shared.write_bytes(b"\1" * 100_000)                # what configurations share by hard link
    os.link(shared, models / "mv2_u85_256" / "reference.bin")
    listed = list_products(models)
    both = [p for p in listed if p.key in ("mv2_u85_128", "mv2_u85_256")]
    assert all(p.size > 100_000 for p in both)
    assert product_cache.total_size(both) == sum(p.size for p in both) - 100_000
    assert over_bounds(listed, None, product_cache.total_size(both)) == listed[2:]
