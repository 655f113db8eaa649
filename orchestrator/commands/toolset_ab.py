"""`invoke regress --matrix M --toolsets A,B`: run the A/B and write its reports."""

from __future__ import annotations

import sys

from orchestrator.cli import print_json
from orchestrator.errors import OrchestratorError
from orchestrator.paths import Scratch
from orchestrator.regress.cells import Cell
from orchestrator.regress.matrix import Matrix
from orchestrator.regress.toolset_ab import run_ab, runtime_source_tag
from orchestrator.regress.toolset_ab_report import rows, verdict, write_ab_reports
from orchestrator.results.model import new_run_id
from orchestrator.toolsets.catalogue import parse_toolsets


def toolset_ab_command(value: str, matrix: Matrix, cells: list[Cell], tree: Scratch,
                       json: bool, quiet: bool) -> int:
    chosen = parse_toolsets(value)
    if len(chosen) != 2:
        raise OrchestratorError(f"--toolsets '{value}' must name two toolsets",
                                "e.g. --toolsets et-1.4.1,et-1.5.1 (invoke toolsets lists them)")
    say = (lambda _line: None) if quiet or json else \
        (lambda line: print(f"ab: {line}", file=sys.stderr))
    document = run_ab(cells, (chosen[0], chosen[1]), tree, runtime_source_tag(tree), say)
    document["matrix"] = str(matrix.path)
    run_dir = tree.runs / f"{new_run_id()}-toolsets"
    paths = write_ab_reports(document, run_dir)
    if json:
        print_json(document)
    elif not quiet:
        for row in rows(document):
            print("  " + " | ".join(row))
        print(verdict(document))
        print(f"toolsets report: {paths['toolsets.md']} (also .json, .html)")
    return 0
