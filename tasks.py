"""invoke tasks: parse flags, call one orchestrator function, print. Nothing else lives here."""

from __future__ import annotations

from invoke import task

from orchestrator import cli


@task(help={"json": "print the catalogue as JSON instead of a table"})
def targets(c, json=False):
    """List every target: CPU, NPU and MACs, platform, simulators, Vela defaults."""
    cli.run(cli.targets_command, json=json)


@task(
    help={
        "target": "only fail for what this target needs (default: every target)",
        "json": "print the checks as JSON",
    }
)
def doctor(c, target=None, json=False):
    """Check everything the tool needs; print the command that fixes each problem."""
    cli.run(cli.doctor_command, target=target, json=json)
