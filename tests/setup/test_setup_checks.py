"""Doctor rows, selection (--only/--targets/--force), options and the real pins data."""

from __future__ import annotations

from pathlib import Path

import pytest
from setup_fakes import catalogue

from orchestrator.foundation.doctor_model import State
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.pins import python_pin
from orchestrator.options.setup import SetupFlags
from orchestrator.setup.catalogue import host_build, host_key, load_setup_catalogue
from orchestrator.setup.checks import setup_checks
from orchestrator.setup.installation import plan
from orchestrator.setup.lock import write_lock_entry
from orchestrator.setup.options import SetupOptions, SourceRequest, build_options
from orchestrator.targets import load_catalogue


def _rows(tree) -> dict:
    return {row.name: row for row in setup_checks(tree, load_catalogue().names())}


def test_doctor_rows_for_an_empty_scratch_name_the_fix(tree):
    rows = _rows(tree)
    toolchain = rows["arm-none-eabi toolchain"]
    assert toolchain.state is State.MISSING and toolchain.needed_by == ("*",)
    assert toolchain.fix == "invoke setup --only toolchain"
    fvp = rows["fvp-corstone-320"]
    assert fvp.category == "simulator" and "ethos-u85-128" in fvp.needed_by
    assert "--accept-eula" in fvp.fix and "ethos-u55-128" not in fvp.needed_by
    driver = rows["ethosu-core-driver source"]
    assert "cortex-m55" not in driver.needed_by and "ethos-u55-128" in driver.needed_by
    assert rows["executorch source"].version == "v1.4.1"


def test_doctor_shows_an_adopted_toolchain_and_a_broken_one(tree, tmp_path):
    gone = tmp_path / "gone-gcc"
    write_lock_entry(tree, "toolchain", {"kind": "toolchain", "provider": "system",
                                         "version": "12.2.1", "bin_dir": str(tmp_path),
                                         "binaries": {"arm-none-eabi-gcc": str(gone)}})
    row = _rows(tree)["arm-none-eabi toolchain"]
    assert row.state is State.MISSING and "gone-gcc" in row.detail
    gone.write_text("")
    names = ("arm-none-eabi-gcc", "arm-none-eabi-g++", "arm-none-eabi-objcopy",
             "arm-none-eabi-size", "arm-none-eabi-nm")
    binaries = {}
    for name in names:
        (tmp_path / name).write_text("")
        binaries[name] = str(tmp_path / name)
    write_lock_entry(tree, "toolchain", {"kind": "toolchain", "provider": "system",
                                         "version": "11.3.1", "bin_dir": str(tmp_path),
                                         "binaries": binaries})
    assert _rows(tree)["arm-none-eabi toolchain"].state is State.WRONG_VERSION


def test_unusable_fvp_row_carries_the_remedy(tree):
    write_lock_entry(tree, "fvp-corstone-300", {
        "kind": "fvp", "provider": "download", "version": "11.27_42", "usable": False,
        "binaries": {}, "install_dir": str(tree.tools / "fvp-corstone-300"),
        "problems": [{"binary": "FVP_Corstone_SSE-300_Ethos-U55", "problem": "is refused",
                      "remedy": "run it with GLIBC_TUNABLES=glibc.rtld.execstack=2"}]})
    row = _rows(tree)["fvp-corstone-300"]
    assert row.state is State.UNUSABLE and row.fix.startswith("run it with GLIBC_TUNABLES")


def test_targets_select_only_what_they_need():
    cat = load_setup_catalogue()
    names = [item.name for item in plan(cat, SetupOptions(targets=("ethos-u85-128",)))]
    assert names == ["toolchain", "fvp-corstone-320", "executorch", "cmsis-nn",
                     "ethosu-core-driver", "cmsis", "vela-sdist"]   # the sdist: its QEMU model
    names = [item.name for item in plan(cat, SetupOptions(targets=("cortex-m55",)))]
    assert names == ["toolchain", "executorch", "cmsis-nn"]     # QEMU first: no FVP needed
    only = [item.name for item in plan(cat, SetupOptions(only=("fvp", "json")))]
    assert only == ["fvp-corstone-300", "fvp-corstone-320", "executorch"]


def test_unknown_only_word_lists_the_valid_ones():
    with pytest.raises(OrchestratorError, match="--only does not know firmware .*toolchain"):
        plan(load_setup_catalogue(), SetupOptions(only=("firmware",)))


def test_options_precedence_flag_over_env_over_config(tmp_path):
    config = tmp_path / "setup.toml"
    config.write_text('mirror = "http://config/"\n[sources]\nexecutorch = "/from/config"\n'
                      'cmsis-nn = "/cfg/cmsis"\n')
    env = {"ETHOSU_ORCH_MIRROR": "http://env/", "ETHOSU_ORCH_SRC_CMSIS_NN": "/env/cmsis@abc"}
    options = build_options(SetupFlags(config=str(config), source=("executorch=/flag/et@v1.4.1",),
                                       force="toolchain,json", allow_unpinned=True), environ=env)
    assert options.mirror == "http://env/"
    assert options.sources["executorch"] == SourceRequest(Path("/flag/et"), "v1.4.1")
    assert options.sources["cmsis-nn"].rev == "abc"
    assert options.forced("json") and not options.forced("fvp-corstone-300")
    assert options.unpinned_ok("anything")
    with pytest.raises(OrchestratorError, match="--source expects NAME=VALUE"):
        build_options(SetupFlags(source=("executorch",)), environ={})


def test_real_pins_are_complete_and_honest():
    cat = load_setup_catalogue()
    assert cat.sources["executorch"].tag == f"v{python_pin('executorch')}"
    assert cat.sources["ethosu-core-driver"].tag == "26.02"
    assert cat.sources["cmsis-nn"].commit == "dbf45dbfcc515421dd6099037d3e2637b90748c8"
    assert sorted(cat.sources["executorch"].submodules) == ["flatbuffers", "flatcc", "fxdiv",
                                                           "gflags", "json"]
    for artifact in cat.artifacts.values():
        assert {"linux-x86_64", "linux-aarch64"} <= set(artifact.hosts)
        for build in artifact.hosts.values():
            assert build.digest_note and build.url.startswith("https://developer.arm.com/")
            if "sha256" not in build.digests:
                assert "md5 only" in build.digest_note
            if artifact.kind == "fvp":   # sha256 published (meta-arm, MLIA) + upstream's md5
                assert set(build.digests) == {"sha256", "md5"}
    assert cat.artifacts["toolchain"].version == "15.2.rel1"
    assert cat.artifacts["fvp-corstone-300"].version == "11.27_42"
    assert cat.artifacts["fvp-corstone-320"].version == "11.27_25"
    assert host_key("Linux", "AMD64") == "linux-x86_64"
    assert host_key("Darwin", "arm64") == "darwin-arm64"
    with pytest.raises(OrchestratorError, match="FVPs-on-Mac"):
        host_build(cat.artifacts["fvp-corstone-300"], "darwin-arm64")


def test_bad_pins_are_rejected():
    with pytest.raises(ValueError, match="needs url and a digest"):
        catalogue({"x": {"kind": "fvp", "version": "1", "archive": "tgz",
                         "hosts": {"linux-x86_64": {"url": "http://x"}}}})
