"""FVP installs with a real shell installer: EULA gate, probes, remedies, unusable binaries."""

from __future__ import annotations

import pytest
from setup_fakes import (
    FAST_POLICY,
    FVP_VERSION_LINE,
    WRONG_ARCH_BINARY,
    Route,
    catalogue,
    fvp_needs_bundled_python,
    fvp_needs_execstack_tunable,
    fvp_ok,
    fvp_package,
    fvp_pin,
    script,
)

from orchestrator.errors import OrchestratorError
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import installed_binary, read_lock, runtime_env
from orchestrator.setup.options import EULA_ENV, SetupOptions, build_options

U55, U65 = "FVP_Corstone_SSE-300_Ethos-U55", "FVP_Corstone_SSE-300_Ethos-U65"
NAME = "fvp-corstone-300"


def _serve(server, fvp_body: bytes, python: bool = False, installer="FVP_Corstone_SSE-300.sh"):
    data = fvp_package(installer, [U55, U65], fvp_body, python=python)
    server.routes["fvp.tgz"] = Route(data)
    pin = fvp_pin(server.url("fvp.tgz"), data, "FVP_Corstone_SSE-300.sh", [U55, U65],
                  bundled_python="python" if python else "")
    return catalogue({NAME: pin})


def _options(**overrides) -> SetupOptions:
    return SetupOptions(only=("fvp",), policy=FAST_POLICY, **{"accept_eula": True, **overrides})


def test_install_runs_the_vendor_installer_and_probes(server, tree):
    cat = _serve(server, fvp_ok())
    run_setup(tree, _options(), cat, host="linux-x86_64")
    u55 = installed_binary(tree, NAME, U55)
    assert u55 == tree.tools / NAME / "models" / "Linux64_GCC-9.3" / U55
    entry = read_lock(tree)[NAME]
    assert entry["usable"] and entry["reported_version"] == "11.27.42"
    assert entry["verified"] == {"md5": cat.artifacts[NAME].hosts["linux-x86_64"].digests["md5"]}
    assert not list(tree.tools.glob(".tmp-*"))                 # the unpacked package is gone


def test_eula_consent_is_required_before_any_download(server, tree):
    cat = _serve(server, fvp_ok())
    with pytest.raises(OrchestratorError) as caught:
        run_setup(tree, _options(accept_eula=False), cat, host="linux-x86_64")
    assert "--accept-eula" in caught.value.message and f"{EULA_ENV}=True" in caught.value.message
    assert server.hits.requests == [] and read_lock(tree) == {}


def test_eula_environment_variable_counts_as_consent():
    assert build_options(environ={EULA_ENV: "True"}).accept_eula
    assert not build_options(environ={EULA_ENV: "yes"}).accept_eula


def test_glibc_execstack_refusal_is_fixed_with_the_tunable(server, tree):
    cat = _serve(server, fvp_needs_execstack_tunable())
    run_setup(tree, _options(), cat, host="linux-x86_64")
    assert runtime_env(tree, NAME)["GLIBC_TUNABLES"] == "glibc.rtld.execstack=2"
    assert installed_binary(tree, NAME, U65).is_file()


def test_bundled_python_is_put_on_the_runtime_env(server, tree):
    cat = _serve(server, fvp_needs_bundled_python(), python=True)
    run_setup(tree, _options(), cat, host="linux-x86_64")
    env = runtime_env(tree, NAME)
    assert env["PYTHONHOME"] == str(tree.tools / NAME / "python")
    assert env["LD_LIBRARY_PATH"] == str(tree.tools / NAME / "python" / "lib")


def test_missing_bundled_python_is_unusable_with_the_remedy(server, tree):
    cat = _serve(server, fvp_needs_bundled_python(), python=False)
    with pytest.raises(OrchestratorError, match="bundled python.*PYTHONHOME"):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    entry = read_lock(tree)[NAME]
    assert entry["usable"] is False and entry["binaries"] == {}
    with pytest.raises(OrchestratorError, match=f"{U55} recorded by setup"):
        installed_binary(tree, NAME, U55)


def test_wrong_architecture_binary_is_never_recorded_as_usable(server, tree):
    cat = _serve(server, WRONG_ARCH_BINARY)
    with pytest.raises(OrchestratorError, match="built for another CPU than linux-x86_64"):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    entry = read_lock(tree)[NAME]
    assert sorted(entry["unusable"]) == [U55, U65] and entry["binaries"] == {}


def test_macos_is_pointed_at_fvps_on_mac(server, tree):
    cat = _serve(server, fvp_ok())
    with pytest.raises(OrchestratorError, match="FVPs-on-Mac"):
        run_setup(tree, _options(), cat, host="darwin-arm64")
    assert server.hits.requests == []


def test_a_failing_installer_leaves_nothing(server, tree):
    cat = _serve(server, fvp_ok(), installer="not-the-installer.sh")
    with pytest.raises(OrchestratorError, match="FVP_Corstone_SSE-300.sh is not in"):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    assert list(tree.tools.iterdir()) == [] and read_lock(tree) == {}


def test_user_installed_fvps_are_adopted_in_place(tree, tmp_path):
    folder = tmp_path / "mac-wrappers"
    folder.mkdir()
    for name in (U55, U65):
        (folder / name).write_bytes(script(f'echo "{FVP_VERSION_LINE}"'))
        (folder / name).chmod(0o755)
    cat = catalogue({NAME: fvp_pin("http://127.0.0.1:9/x.tgz", b"", "x.sh", [U55, U65])})
    run_setup(tree, _options(accept_eula=False, fvp_dirs={NAME: folder}), cat,
              host="linux-x86_64")
    assert installed_binary(tree, NAME, U55) == folder / U55
    assert read_lock(tree)[NAME]["provider"] == "user"
