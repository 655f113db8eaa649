"""invoke tasks: parse flags, call one orchestrator function. Nothing else lives here."""

from __future__ import annotations

from invoke import task

from orchestrator.cli import run
from orchestrator.options import RunRequest
from orchestrator.options.compile import CompileTask
from orchestrator.options.setup import SetupFlags
from orchestrator.task_options import options_task

QUIET_HELP = "no step progress on stderr"


@task(help={"json": "print the catalogue as JSON instead of a table"})
def targets(c, json=False):
    """List every target: CPU, NPU and MACs, platform, simulators, Vela defaults."""
    run("orchestrator.targets.listing:targets_command", json=json)


@task(
    help={
        "target": "fail only for what this target needs (default: anything missing fails)",
        "json": "print the checks as JSON",
    }
)
def doctor(c, target=None, json=False):
    """Check everything the tool needs and print the command that fixes each problem."""
    run("orchestrator.doctor:doctor_command", target=target, json=json)


@task(
    help={
        "logfile": "a saved console log: upstream runner / run_fvp.sh / FVP / Zephyr, or a "
        "transcript.log of this tool; or a folder: every .log/.txt in it, one table",
        "json": "print the RunResult document as JSON (a list of them for a folder)",
        "etdump_dir": "where decoded ETDump blocks go (default: <logfile>.etdump/)",
        "target": "target name, to label PMU counters when the log printed no event list",
    },
    positional=["logfile"],
)
def parse(c, logfile, json=False, etdump_dir=None, target=None):
    """Turn any runner log into a RunResult: status, cause, next step, numbers."""
    run(
        "orchestrator.parse.parse_cli:parse_command",
        logfile=logfile,
        json=json,
        etdump_dir=etdump_dir,
        target=target,
    )


@task(
    help={
        "target": "catalogue target (invoke targets), e.g. cortex-m55 or ethos-u55-128",
        "app": "firmware app under firmware/apps/ (default: selftest)",
        "build_type": "release or debug",
        "option": "NAME=value build option, repeatable (e.g. EOR_STACK_SIZE=0x10000)",
        "json": "print the build manifest as JSON",
        "kernel_set": "runner: portable kernels (model, all or a named set: "
                      "orchestrator/data/runner.toml)",
        "memory_mode": "runner: Ethos-U memory mode (default: the target's)",
        "quiet": QUIET_HELP,
    },
    iterable=["option"],
    auto_shortflags=False,
)
def build(c, target, app="selftest", build_type="release", option=None, json=False,
          kernel_set=None, memory_mode=None, quiet=False):
    """Configure if needed, build incrementally, print ELF sections and memory-region use."""
    run("orchestrator.build.build_cli:build_command", silent=quiet, target=target, app=app,
        build_type=build_type, options=option, json=json, kernel_set=kernel_set,
        memory_mode=memory_mode)


run_ = options_task(
    "orchestrator.run:run_command", RunRequest, name="run",
    doc="Build, simulate and parse: prints a result table, writes scratch/runs/<id>/.",
    flags={"json": (False, "print the RunResult document as JSON"),
           "quiet": (False, QUIET_HELP)},
)


compile = options_task(
    "orchestrator.aot.compile_cli:compile_command", CompileTask, name="compile",
    doc="Compile a PyTorch model to a .pte with Vela and delegation reports (cached).",
    flags={"json": (False, "print the summary as JSON"), "quiet": (False, QUIET_HELP)},
)


@task(
    help={
        "matrix": "matrix TOML file (examples/regress/qemu.toml runs anywhere with QEMU)",
        "jobs": "cells simulated in parallel (default: number of cores)",
        "shard": "run only shard i/N of the cells (deterministic, balanced; for CI job matrices)",
        "filter": "comma-separated globs on model, target, lane or cell key (e.g. 'mv2,*u85*')",
        "rerun_failed": "run only the cells that failed in the last report",
        "update_baselines": "record this run's metrics as the baselines and print the diff",
        "baselines": "baselines JSON (default: the matrix's `baselines` key, else "
                     "<matrix>.baselines.json)",
        "require": "simulator kinds that must be present (fvp, qemu): their absence fails cells",
        "json": "print the report document as JSON",
        "quiet": "print nothing but errors (reports are still written)",
    },
)
def regress(c, matrix=None, jobs=None, shard=None, filter=None, rerun_failed=False,
            update_baselines=False, baselines=None, require=None, json=False, quiet=False):
    """Run a regression matrix; reports go to scratch/runs/<run id>/, exit 1 if a cell failed."""
    run("orchestrator.regress.regress_cli:regress_command", matrix=matrix, jobs=jobs, shard=shard,
        filter=filter, rerun_failed=rerun_failed, update_baselines=update_baselines,
        baselines=baselines, require=require, json=json, quiet=quiet)


@task(
    help={
        "reports": "comma-separated report.json files (or run directories) of the shards",
        "out": "directory for the merged reports (default: scratch/runs/<new run id>/)",
        "json": "print the merged document as JSON",
        "quiet": "print nothing but errors",
    },
)
def regress_merge(c, reports=None, out=None, json=False, quiet=False):
    """Merge `invoke regress --shard i/N` reports into one report and one verdict."""
    run("orchestrator.regress.regress_cli:merge_command", reports=reports, out=out, json=json,
        quiet=quiet)


setup = options_task(
    "orchestrator.setup.installation:setup_command", SetupFlags, name="setup",
    doc="Install the pinned toolchain, Corstone FVPs and upstream sources (verified, cached).",
    flags={"json": (False, "print the lock entries of the selected items as JSON"),
           "quiet": (False, QUIET_HELP)},
)


@task(help={"model": "built-in model name, .py/.pt file or module:function",
            "target": "an ethos-u55-* or ethos-u65-* target",
            "json": "print the report as JSON (top-level \"exact\": true|false)"})
def verify(c, model="mv2", target="ethos-u55-128", json=False):
    """NPU partitions on the functional NPU model vs the TOSA reference; exit 0 only if exact."""
    run("orchestrator.vnpu.verify_cli:verify_command", model=model, target=target, json=json)
