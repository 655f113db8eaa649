"""invoke tasks: parse flags, call one orchestrator function. Nothing else lives here."""

from __future__ import annotations

from invoke import task

from orchestrator.cli import run


@task(help={"json": "print the catalogue as JSON instead of a table"})
def targets(c, json=False):
    """List every target: CPU, NPU and MACs, platform, simulators, Vela defaults."""
    run("orchestrator.targets.report:targets_command", json=json)


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
        "logfile": "a saved console log of arm_executor_runner / run_fvp.sh / FVP / Zephyr",
        "json": "print the RunResult document as JSON",
        "etdump_dir": "where decoded ETDump blocks go (default: <logfile>.etdump/)",
        "target": "target name, to label PMU counters when the log printed no event list",
    },
    positional=["logfile"],
)
def parse(c, logfile, json=False, etdump_dir=None, target=None):
    """Turn any upstream runner log into a RunResult: status, cause, next step, numbers."""
    run(
        "orchestrator.parse.command:parse_command",
        logfile=logfile,
        json=json,
        etdump_dir=etdump_dir,
        target=target,
    )
