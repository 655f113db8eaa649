"""`regress` and `regress-merge`: select a matrix's cells, run them (here or on a Dask
cluster), compare with the baselines, write every report."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from orchestrator.api.reports import RegressReport
from orchestrator.foundation.cli import split_list
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.foundation.progress import quiet_if
from orchestrator.foundation.run_ids import new_run_id
from orchestrator.options.regress import RegressMerge, RegressTask
from orchestrator.regress.cluster.command import cluster_spec, job_journal, run_on_cluster
from orchestrator.regress.engine import EngineOptions, EngineRun, execute
from orchestrator.regress.lanes.stages import Stages
from orchestrator.regress.plan.cells import Cell
from orchestrator.regress.plan.matrix import Matrix, expand, load_matrix
from orchestrator.regress.plan.select import filter_cells, only_keys, parse_shard, shard_cells
from orchestrator.regress.progress import make_progress
from orchestrator.regress.report.document import (
    RunHeader,
    build_document,
    last_report,
    remember_last,
)
from orchestrator.regress.report.records import (
    MatrixRef,
    RegressDocument,
    RunOptions,
    ToolsetRecord,
)
from orchestrator.regress.report.writers import write_reports
from orchestrator.regress.verdict.baseline import Baselines, load_baselines
from orchestrator.regress.verdict.outcome import Outcome
from orchestrator.results.model import utc_now

EXIT_FAILED = 1
KNOWN_REQUIREMENTS = ("fvp", "qemu")


def regress_with(task: RegressTask, scratch_root: str | None = None,
                 stages: Stages | None = None, display: bool | None = None) -> RegressReport:
    """Run a matrix file; write report.json, junit.xml, summary.md, report.html (or, for
    --toolsets A,B, the A/B reports). `display`: the live cell table on stderr (default: not
    --quiet)."""
    matrix, shard, filter, rerun_failed = task.matrix, task.shard, task.filter, task.rerun_failed
    require = task.require
    display = not task.quiet if display is None else display
    if not matrix:
        raise OrchestratorError("invoke regress needs a matrix file",
                                "invoke regress --matrix examples/regress/qemu.toml")
    tree = scratch(scratch_root).ensure()
    loaded = load_matrix(matrix)
    cells = select_cells(loaded, tree, filter, rerun_failed, shard)
    toolset = _single_toolset(task.toolsets)
    if task.toolsets and toolset is None:
        return toolset_ab(task.toolsets, loaded, cells, tree, display)
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
    progress = make_progress(not display)
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
    document.toolset = _toolset_record(toolset)
    document.baseline_updates = updates
    document.cluster = section
    return publish(document, options.run_dir, tree)


def _real_stages(tree: Scratch, toolset: str | None = None) -> Stages:
    from orchestrator.regress.lanes.real_stages import RealStages
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
        if last.matrix.name != loaded.name:
            raise OrchestratorError(
                f"the last report ({last.run_id}) is of matrix {last.matrix.name!r}, "
                f"not {loaded.name!r}", f"invoke regress --matrix {last.matrix.path} "
                "--rerun-failed")
        cells = only_keys(cells, {cell.key for cell in last.failing})
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


def _toolset_record(name: str | None) -> ToolsetRecord:
    """The toolset the matrix ran under (the pinned one unless --toolsets names one)."""
    from orchestrator.toolsets.catalogue import find_toolset

    toolset = find_toolset(name)
    return ToolsetRecord(toolset.name, dict(toolset.versions), toolset.runtime_tag,
                         toolset.default, list(toolset.vela_flags))


def _header(loaded: Matrix, options: EngineOptions, shard: str | None, started: str,
            filter: str | None, rerun_failed: bool, require: str | None) -> RunHeader:
    """The run-level fields of the report document."""
    parsed = parse_shard(shard)
    return RunHeader(
        run_id=options.run_id, matrix=MatrixRef(loaded.name, str(loaded.path)),
        shard=str(parsed) if parsed else None, started_at=started, finished_at=utc_now(),
        options=RunOptions(
            jobs=options.jobs, filter=filter, rerun_failed=rerun_failed,
            require=sorted(options.require), require_arg=require,
            baselines=str(options.baselines.path) if options.baselines else None))


def publish(document: RegressDocument, run_dir: Path, tree: Scratch) -> RegressReport:
    """Write all reports and remember this one as the last."""
    paths = write_reports(run_dir, document)
    remember_last(tree.runs, paths["json"])
    _step_summary(paths["markdown"])
    return RegressReport(document.to_json(), paths, typed=document)


def _step_summary(markdown: Path) -> None:
    """Append the Markdown summary to $GITHUB_STEP_SUMMARY when running in GitHub Actions."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(markdown.read_text(encoding="utf-8"))


def merge_with(task: RegressMerge, scratch_root: str | None = None) -> RegressReport:
    """Combine shard reports into one report and one verdict."""
    from orchestrator.regress.report.merge import merge_documents, read_reports

    tree = scratch(scratch_root).ensure()
    documents = read_reports(split_list(task.reports))
    merged = merge_documents(documents, new_run_id(), utc_now())
    run_dir = Path(task.out).expanduser().resolve() if task.out else tree.runs / merged.run_id
    return publish(merged, run_dir, tree)


def toolset_ab(value: str, matrix: Matrix, cells: list[Cell], tree: Scratch,
               display: bool) -> RegressReport:
    """`--toolsets A,B`: the compile and host lanes under both toolsets, one comparison
    report (toolsets.json/.md/.html)."""
    from orchestrator.regress.report.toolset_ab import write_ab_reports
    from orchestrator.regress.toolset_ab import run_ab, runtime_source_tag
    from orchestrator.toolsets.catalogue import parse_toolsets

    chosen = parse_toolsets(value)
    if len(chosen) != 2:
        raise OrchestratorError(f"--toolsets '{value}' must name two toolsets",
                                "e.g. --toolsets et-1.4.1,et-1.5.1 (invoke toolsets lists them)")
    say = (lambda line: print(f"ab: {line}", file=sys.stderr)) if display else \
        (lambda _line: None)
    document = run_ab(cells, (chosen[0], chosen[1]), tree, runtime_source_tag(tree), say)
    document["matrix"] = str(matrix.path)
    paths = write_ab_reports(tree.runs / f"{new_run_id()}-toolsets", document)
    return RegressReport(document, paths, toolsets=True)
