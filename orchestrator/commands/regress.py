"""`invoke regress` and `invoke regress-merge`: select cells, run them, write every report."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from orchestrator.cli import console, print_json, split_list
from orchestrator.errors import OrchestratorError
from orchestrator.options.regress import RegressMerge, RegressTask
from orchestrator.paths import Scratch, scratch
from orchestrator.progress import quiet_if
from orchestrator.regress.baseline import Baselines, fmt, load_baselines
from orchestrator.regress.cells import Cell
from orchestrator.regress.cluster.command import cluster_spec, job_journal, run_on_cluster
from orchestrator.regress.engine import EngineOptions, EngineRun, execute
from orchestrator.regress.markdown import HEADLINE_METRICS
from orchestrator.regress.matrix import Matrix, expand, load_matrix
from orchestrator.regress.outcome import Outcome
from orchestrator.regress.progress import make_progress
from orchestrator.regress.report_document import (
    build_document,
    failing_cells,
    last_report,
    remember_last,
)
from orchestrator.regress.select import filter_cells, only_keys, parse_shard, shard_cells
from orchestrator.regress.stages import Stages
from orchestrator.regress.writers import write_reports
from orchestrator.results.model import new_run_id, utc_now

EXIT_FAILED = 1
KNOWN_REQUIREMENTS = ("fvp", "qemu")


def regress_command(task: RegressTask, json: bool = False, scratch_root: str | None = None,
                    stages: Stages | None = None) -> int:
    """Run a matrix file; write report.json, junit.xml, summary.md, report.html; 1 iff failed."""
    matrix, shard, filter, rerun_failed = task.matrix, task.shard, task.filter, task.rerun_failed
    require, quiet = task.require, task.quiet
    if not matrix:
        raise OrchestratorError("invoke regress needs a matrix file",
                                "invoke regress --matrix examples/regress/qemu.toml")
    tree = scratch(scratch_root).ensure()
    loaded = load_matrix(matrix)
    cells = select_cells(loaded, tree, filter, rerun_failed, shard)
    toolset = _single_toolset(task.toolsets)
    if task.toolsets and toolset is None:
        from orchestrator.commands.toolset_ab import toolset_ab_command

        return toolset_ab_command(task.toolsets, loaded, cells, tree, json, quiet)
    spec = cluster_spec(task)
    if spec is not None and toolset is not None:
        raise OrchestratorError("--toolsets runs the matrix on this machine (its compile "
                                "worker needs the toolset's environment here)",
                                f"drop --scheduler/--workers, or invoke regress --matrix "
                                f"{matrix} --toolsets {toolset}")
    journal = job_journal(task, tree, loaded, cells) if spec else None
    run_id = (journal.run_id() if journal else None) or new_run_id()
    book = load_baselines(baselines_path(loaded, task.baselines))
    options = EngineOptions(run_id=run_id, run_dir=tree.runs / run_id,
                            jobs=_jobs(task.jobs), require=_require(require),
                            baselines=book, tolerances=loaded.tolerances)
    progress = make_progress(quiet or json)
    quiet_if(True)   # the job's own display reports its builds; one live display at a time
    started = utc_now()
    section = None
    try:
        if spec is not None and journal is not None:
            run, section = run_on_cluster(cells, stages, options, spec, tree, journal,
                                          progress)
        else:
            run = execute(cells, stages or _real_stages(tree, toolset), options, progress)
    finally:
        progress.close()
    updates = _update_baselines(run, book) if task.update_baselines else None
    document = build_document(run, _header(loaded, options, shard, started, filter,
                                           rerun_failed, require))
    document["toolset"] = _toolset_json(toolset)
    if updates is not None:
        document["baseline_updates"] = updates
    if section is not None:
        document["cluster"] = section
    return _publish(document, options.run_dir, tree, json, quiet)


def _real_stages(tree: Scratch, toolset: str | None = None) -> Stages:
    from orchestrator.regress.real_stages import RealStages
    from orchestrator.toolsets.catalogue import find_toolset

    return RealStages(tree, toolset=find_toolset(toolset) if toolset else None)


def select_cells(loaded: Matrix, tree: Scratch, filter: str | None, rerun_failed: bool,
                 shard: str | None) -> list[Cell]:
    """Expand the matrix, then apply --filter, --rerun-failed and --shard in that order."""
    from orchestrator.targets import load_catalogue

    cells = filter_cells(expand(loaded, load_catalogue()), split_list(filter))
    if filter and not cells:
        raise OrchestratorError(f"no cell of {loaded.path.name} matches --filter {filter!r}",
                                f"invoke regress --matrix {loaded.path} (without --filter)")
    if rerun_failed:
        last = last_report(tree.runs)
        if last["matrix"]["name"] != loaded.name:
            raise OrchestratorError(
                f"the last report ({last['run_id']}) is of matrix {last['matrix']['name']!r}, "
                f"not {loaded.name!r}", f"invoke regress --matrix {last['matrix']['path']} "
                "--rerun-failed")
        cells = only_keys(cells, {cell["key"] for cell in failing_cells(last)})
    return shard_cells(cells, parse_shard(shard))


def baselines_path(loaded: Matrix, override: str | None) -> Path:
    """--baselines, else the matrix's `baselines`, else <matrix>.baselines.json beside it."""
    if override:
        return Path(override).expanduser().resolve()
    return loaded.baselines or loaded.path.with_suffix(".baselines.json")


def _jobs(value: int | str | None) -> int:
    """-j N (default: the number of cores)."""
    if value in (None, ""):
        return os.cpu_count() or 1
    try:
        jobs = int(value)
    except (TypeError, ValueError):
        jobs = 0
    if jobs < 1:
        raise OrchestratorError(f"-j {value} is not a positive number of parallel cells",
                                "invoke regress -j 2 ...")
    return jobs


def _require(text: str | None) -> frozenset[str]:
    """--require fvp[,qemu]: simulator kinds whose absence fails instead of skipping."""
    kinds = frozenset(split_list(text))
    unknown = sorted(kinds - set(KNOWN_REQUIREMENTS))
    if unknown:
        raise OrchestratorError(f"--require {','.join(unknown)} is not a simulator kind",
                                f"use --require {' or '.join(KNOWN_REQUIREMENTS)}")
    return kinds


def _update_baselines(run: EngineRun, book: Baselines) -> list[str]:
    """Record every passing cell's metrics; accepted regressions become passes. Return the diff."""
    lines: list[str] = []
    for report in run.cells:
        if report.outcome is Outcome.REGRESSED:
            report.outcome = Outcome.PASS
            report.reason = "baseline updated: " + (report.baseline.summary()
                                                    if report.baseline else "")
        if report.outcome is Outcome.PASS and report.metrics:
            cell = report.cell
            identity = {"model": cell.model, "target": cell.target,
                        "options": cell.options_name}
            lines += book.update(cell.key, identity, report.metrics, report.versions,
                                 report.run_id)
    book.save()
    return lines


def _single_toolset(value: str | None) -> str | None:
    """The one toolset of `--toolsets A` (None: none given, or two for an A/B)."""
    if not value:
        return None
    from orchestrator.toolsets.catalogue import parse_toolsets

    chosen = parse_toolsets(value)
    return chosen[0].name if len(chosen) == 1 else None


def _toolset_json(name: str | None) -> dict[str, Any]:
    """The toolset the matrix ran under (the pinned one unless --toolsets names one)."""
    from orchestrator.toolsets.catalogue import find_toolset

    return find_toolset(name).to_json()


def _header(loaded: Matrix, options: EngineOptions, shard: str | None, started: str,
            filter: str | None, rerun_failed: bool, require: str | None) -> dict[str, Any]:
    """The run-level fields of the report document."""
    parsed = parse_shard(shard)
    return {
        "run_id": options.run_id,
        "matrix": {"name": loaded.name, "path": str(loaded.path)},
        "shard": str(parsed) if parsed else None,
        "started_at": started,
        "finished_at": utc_now(),
        "options": {"jobs": options.jobs, "filter": filter, "rerun_failed": rerun_failed,
                    "require": sorted(options.require), "require_arg": require,
                    "baselines": str(options.baselines.path) if options.baselines else None},
    }


def _publish(document: dict[str, Any], run_dir: Path, tree: Scratch, json: bool,
             quiet: bool) -> int:
    """Write all reports, remember this one as the last, print, and return the exit code."""
    paths = write_reports(document, run_dir)
    remember_last(tree.runs, paths["json"])
    _step_summary(paths["markdown"])
    if json:
        print_json(document)
    elif not quiet:
        print_summary(document, paths, console())
    return EXIT_FAILED if document["verdict"] == "fail" else 0


def _step_summary(markdown: Path) -> None:
    """Append the Markdown summary to $GITHUB_STEP_SUMMARY when running in GitHub Actions."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(markdown.read_text(encoding="utf-8"))


def merge_command(task: RegressMerge, json: bool = False, scratch_root: str | None = None) -> int:
    """Combine shard reports into one report and one verdict; 1 iff a cell failed."""
    reports, out, quiet = task.reports, task.out, task.quiet
    from orchestrator.regress.merge import merge_documents, read_reports

    tree = scratch(scratch_root).ensure()
    documents = read_reports(split_list(reports))
    merged = merge_documents(documents, new_run_id(), utc_now())
    run_dir = Path(out).expanduser().resolve() if out else tree.runs / merged["run_id"]
    return _publish(merged, run_dir, tree, json, quiet)


SHORT_NAMES = {"npu.cycles": "NPU cyc", "cpu.cycles": "CPU cyc", "vela.npu_cycles": "Vela NPU",
               "vela.total_cycles": "Vela total", "memory.pte_size": ".pte B",
               "error.max_abs": "max err"}
STYLES = {"pass": "green", "xfail": "green", "skipped": "dim", "fail": "red", "error": "red",
          "timeout": "red", "xpass": "magenta", "regressed": "yellow"}


def print_summary(document: dict[str, Any], paths: dict[str, Path], console: Any) -> None:
    """A table of cells, the baseline diff, the report paths and a one-line verdict."""
    from rich.table import Table

    cells = document["cells"]
    metrics = [name for name in HEADLINE_METRICS
               if any(name in cell.get("metrics", {}) for cell in cells)]
    table = Table(title=f"regress {document['matrix']['name']} ({document['run_id']})")
    table.add_column("outcome", min_width=9, no_wrap=True)
    table.add_column("cell", min_width=30, no_wrap=True)
    table.add_column("mode", min_width=7, no_wrap=True)
    table.add_column("sim", min_width=4, no_wrap=True)
    for column in metrics:
        label = SHORT_NAMES.get(column, column)
        table.add_column(label, justify="right", min_width=len(label), no_wrap=True)
    upstream = any(cell.get("upstream") for cell in cells)   # its mark; the reports say more
    if upstream:
        table.add_column("upstream", min_width=8, no_wrap=True)
    table.add_column("reason", overflow="ellipsis", no_wrap=True, max_width=48)
    for cell in cells:
        theirs = [(cell.get("upstream") or {}).get("status", "-")] if upstream else []
        table.add_row(f"[{STYLES[cell['outcome']]}]{cell['outcome']}[/]", cell["key"],
                      cell["mode"], cell.get("sim") or "-",
                      *(fmt(cell.get("metrics", {}).get(name)) for name in metrics),
                      *theirs, cell["reason"])
    console.print(table)
    for line in document.get("baseline_updates") or []:
        console.print(line, highlight=False, markup=False)
    for name, path in paths.items():
        console.print(f"{name:8} {path}", highlight=False)
    counts = ", ".join(f"{k} {v}" for k, v in document["counts"].items() if v and k != "total")
    colour = "green" if document["verdict"] == "pass" else "red"
    ran = document["counts"]["total"] - document["counts"]["skipped"]
    note = "" if ran else " (no cell ran)"
    console.print(f"[{colour}]{document['verdict'].upper()}[/]{note}: {counts or 'no cells'}")
