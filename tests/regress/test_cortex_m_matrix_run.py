"""A slice of the shipped Cortex-M matrix (examples/regress/cortex-m.toml) run for real
through `invoke regress`: the platform self-test of a CPU with a QEMU board of its own and of
one without (cortex-m0plus, on the M3 board), real GCC builds and QEMU runs, no upstream
sources needed. Every cell passes, and the cortex-m0plus result says which core ran it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from orchestrator.commands.regress import regress_command
from orchestrator.foundation.paths import scratch
from orchestrator.options.regress import RegressTask
from orchestrator.regress.report.document import LAST_POINTER

pytestmark = pytest.mark.slow
MATRIX = Path(__file__).resolve().parents[2] / "examples" / "regress" / "cortex-m.toml"


def test_selftest_slice_passes_and_names_the_core_that_ran_it(tmp_path: Path) -> None:
    if not Path("/usr/bin/arm-none-eabi-gcc").is_file() or not shutil.which("qemu-system-arm"):
        pytest.skip("needs arm-none-eabi-gcc and qemu-system-arm (apt-get install "
                    "gcc-arm-none-eabi qemu-system-arm)")
    from orchestrator.setup.toolchain import adopt_system_toolchain

    tree = scratch(tmp_path / "scratch").ensure()
    adopt_system_toolchain(tree)
    task = RegressTask(str(MATRIX), quiet=True,
                       filter="selftest@cortex-m0plus/default,selftest@cortex-m3/default")
    code = regress_command(task, scratch_root=str(tree.root))
    pointer = json.loads((tree.runs / LAST_POINTER).read_text())
    cells = {cell["key"]: cell for cell in json.loads(Path(pointer["report"]).read_text())["cells"]}
    assert code == 0, cells
    assert set(cells) == {"selftest@cortex-m0plus/default", "selftest@cortex-m3/default"}
    records = {key: cell["result"]["target"]["options"]["cortex_m"] for key, cell in cells.items()}
    for cell in cells.values():
        assert cell["outcome"] == "pass" and cell["sim"] == "qemu-mps2-an385", cell["reason"]
        assert cell["metrics"]["cpu.cycles"] > 0
    plus = records["selftest@cortex-m0plus/default"]
    assert (plus["cpu"], plus["float_abi"], plus["fpu"]) == ("cortex-m0plus", "soft", "none")
    assert plus["ran_on"].startswith("cortex-m0plus program (-mcpu=cortex-m0plus) ran on "
                                     "QEMU's Cortex-M3 (mps2-an385): same instructions")
    assert "ran_on" not in records["selftest@cortex-m3/default"]
