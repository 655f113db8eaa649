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
