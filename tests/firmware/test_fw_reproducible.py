"""Builds do not depend on where the checkout or the scratch is: two copies of this checkout
at different paths (different lengths), each with its own scratch, build the self-test
through the real CLI to the same section sizes and the same bytes (same GNU build id), with
no checkout or scratch path inside the ELF. Also: step progress in a non-terminal log."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from clone_copies import built, cli, copy_checkout, sizes

from orchestrator.foundation.paths import repo_root, scratch
from orchestrator.setup.toolchain import SYSTEM_BIN_DIR, adopt_system_toolchain

pytestmark = pytest.mark.slow
@pytest.fixture(scope="module")
def two_places(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Path, Path]]:
    if not (SYSTEM_BIN_DIR / "arm-none-eabi-gcc").is_file():
        pytest.skip("arm-none-eabi-gcc is not installed (apt-get install gcc-arm-none-eabi)")
    base = tmp_path_factory.mktemp("places")
    places = [(copy_checkout(base / "a"), base / "s1"),
              (copy_checkout(base / "much" / "longer" / "clone-path"), base / "other-scratch")]
    for _checkout, work in places:
        adopt_system_toolchain(scratch(work).ensure())
    return places




def test_selftest_is_the_same_from_any_checkout_and_scratch(two_places):
    manifests = [built(checkout, work, "--target", "cortex-m55")
                 for checkout, work in two_places]
    assert sizes(manifests[0]) == sizes(manifests[1])
    assert manifests[0]["build_id"] == manifests[1]["build_id"]
    for (checkout, work), manifest in zip(two_places, manifests, strict=True):
        image = Path(manifest["elf"]).read_bytes()
        for place in (checkout, work, repo_root()):
            assert str(place).encode() not in image, place


def test_progress_lines_in_a_log_and_quiet(two_places):
    checkout, work = two_places[0]
    shutil.rmtree(work / "build", ignore_errors=True)
    logged = cli(checkout, work, "build", "--target", "cortex-m55")
    assert logged.returncode == 0, logged.stderr
    lines = [line for line in logged.stderr.splitlines() if line.startswith("eor: ")]
    key = "selftest-mps3-an547-cpu-release"
    assert lines[0] == f"eor: configure {key} ..."
    assert any(line.startswith(f"eor: configure {key} done in ") for line in lines)
    assert lines[-1].startswith(f"eor: build {key} done in ")
    quiet = cli(checkout, work, "build", "--target", "cortex-m55", "--quiet")
    assert quiet.returncode == 0 and "eor: " not in quiet.stderr
    assert "up to date" in quiet.stdout
