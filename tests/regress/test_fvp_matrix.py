"""examples/regress/fvp.toml on a machine without FVPs: every cell is skipped with the reason
and the setup command (nothing built, nothing compiled), and --require fvp fails them all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import repo_root
from orchestrator.options.regress import RegressTask
from orchestrator.regress.report.document import LAST_POINTER

FVP_MATRIX = repo_root() / "examples" / "regress" / "fvp.toml"


def last(tree: Path) -> dict:
    pointer = json.loads((tree / "runs" / LAST_POINTER).read_text())
    return json.loads(Path(pointer["report"]).read_text())


def test_fvp_cells_skip_with_reason_and_require_fails_them(tree, tmp_path):
    baselines = str(tmp_path / "fvp.baselines.json")
    assert regress_command(RegressTask(str(FVP_MATRIX), quiet=True, baselines=baselines)) == 0
    document = last(tree)
    assert document["counts"]["skipped"] == document["counts"]["total"] == 23
    assert document["builds"] == [] and document["compiles"] == []
    reasons = {cell["reason"] for cell in document["cells"]}
    # the U55 and U65 FVPs both come from setup's fvp-corstone-300 package
    assert reasons == {f"{sim} is not set up in {tree}; next: invoke setup --only {artifact}"
                       for sim, artifact in (("fvp-corstone-300-u55", "fvp-corstone-300"),
                                             ("fvp-corstone-300-u65", "fvp-corstone-300"),
                                             ("fvp-corstone-320", "fvp-corstone-320"))}
    assert regress_command(RegressTask(str(FVP_MATRIX), quiet=True, baselines=baselines,
                                       require="fvp")) == 1
    strict = last(tree)
    assert strict["counts"]["error"] == 23 and strict["verdict"] == "fail"
    assert all(cell["reason"].startswith("--require fvp: ") for cell in strict["cells"])


def test_invoke_regress_errors_are_one_line(tree):
    result = subprocess.run([sys.executable, "-m", "invoke", "regress", "--matrix", "nope.toml"],
                            capture_output=True, text=True, cwd=repo_root(), check=False)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"error: matrix file {repo_root() / 'nope.toml'} does not exist; next: invoke regress "
        "--matrix examples/regress/qemu.toml"]
