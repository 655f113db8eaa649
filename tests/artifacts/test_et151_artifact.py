"""An artifact made by ExecuTorch 1.5.1 (the et-1.5.1 toolset's environment, with executorch's
own APIs as aot_arm_compiler uses them): `invoke inspect` reads it and says whether the pinned
1.4.1 runtime can run it. Needs the toolset installed (invoke setup --toolsets et-1.5.1) in
the scratch tree; the export in that environment takes minutes, so it runs under -m sweep."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from orchestrator.artifacts.inspection import inspect_artifact
from orchestrator.foundation.paths import scratch

pytestmark = [pytest.mark.slow, pytest.mark.sweep]
HELPERS = Path(__file__).resolve().parent
WRITE = """
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, sys.argv[1])
import importlib.metadata
from foreign_artifacts import ethosu_program
program, _, _ = ethosu_program("ethos-u85-128")
open(sys.argv[2], "wb").write(program.buffer)
print(importlib.metadata.version("executorch"))
"""


def test_an_executorch_151_artifact_is_read_and_judged(tmp_path: Path) -> None:
    from orchestrator.toolsets.catalogue import find_toolset
    from orchestrator.toolsets.environment import installed_toolset

    installed = installed_toolset(find_toolset("et-1.5.1"), scratch())
    if installed is None:
        pytest.skip("the et-1.5.1 toolset is not installed (invoke setup --toolsets et-1.5.1)")
    pte = tmp_path / "tiny_u85_et151.pte"
    done = subprocess.run([str(installed.python), "-c", WRITE, str(HELPERS), str(pte)],
                          capture_output=True, text=True, timeout=1800, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "1.5.1"
    inspection = inspect_artifact(pte)
    assert inspection.targets == ("ethos-u85-128",)
    (delegate,) = inspection.ethosu
    assert delegate.optimizer is not None and delegate.optimizer.target == "ethos-u85-128"
    assert delegate.external_blocks == ()
    # a 1.5.1 program with inline Vela blocks and cortex_m edge kernels: 1.4.1 runs it
    assert inspection.runnable and inspection.reasons == ()
    assert inspection.runtime == "1.4.1"
