"""FVP installs with a real shell installer: EULA gate, probes, remedies, unusable binaries."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from setup_fakes import (
    FAST_POLICY,
    FVP_VERSION_LINE,
    WRONG_ARCH_BINARY,
    Route,
    catalogue,
    execstack_library,
    fvp_needs_bundled_python,
    fvp_ok,
    fvp_package,
    fvp_pin,
    fvp_refusing_execstack,
    script,
)

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup import execstack
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import installed_binary, read_lock, runtime_env
from orchestrator.setup.options import EULA_ENV, SetupOptions, build_options

U55, U65 = "FVP_Corstone_SSE-300_Ethos-U55", "FVP_Corstone_SSE-300_Ethos-U65"
NAME = "fvp-corstone-300"


def _serve(server, fvp_body: bytes, python: bool = False, installer="FVP_Corstone_SSE-300.sh",
           libraries: dict[str, bytes] | None = None):
    data = fvp_package(installer, [U55, U65], fvp_body, python=python, libraries=libraries)
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


needs_gcc = pytest.mark.skipif(not (shutil.which("gcc") and shutil.which("readelf")),
                               reason="needs the host gcc and readelf (apt-get install gcc)")


def _execstack_fvp(server, tmp_path):
    return _serve(server, fvp_refusing_execstack(),
                  libraries={"libarmctmodel.so": execstack_library(tmp_path)})


def _stack_flags(library) -> str:
    out = subprocess.run(["readelf", "-lW", str(library)], check=True, capture_output=True,
                         text=True).stdout
    return next(line for line in out.splitlines() if "GNU_STACK" in line).split()[-2]


@needs_gcc
def test_glibc_2_42_execstack_refusal_is_fixed_with_the_tunable(server, tree, tmp_path,
                                                                 monkeypatch):
    monkeypatch.setattr(execstack, "glibc_version", lambda text=None: (2, 42))
    run_setup(tree, _options(), _execstack_fvp(server, tmp_path), host="linux-x86_64")
    assert runtime_env(tree, NAME)["GLIBC_TUNABLES"] == "glibc.rtld.execstack=2"
    assert read_lock(tree)[NAME]["execstack_fix"] == "tunable"
    library = installed_binary(tree, NAME, U65).parent / "libarmctmodel.so"
    assert _stack_flags(library) == "RWE"          # the install is left as shipped


@needs_gcc
def test_glibc_2_41_execstack_refusal_is_fixed_by_clearing_the_flag(server, tree, tmp_path,
                                                                    monkeypatch):
    # 2.41 knows glibc.rtld.execstack but not the value 2: the request itself goes
    monkeypatch.setattr(execstack, "glibc_version", lambda text=None: (2, 41))
    run_setup(tree, _options(), _execstack_fvp(server, tmp_path), host="linux-x86_64")
    assert "GLIBC_TUNABLES" not in runtime_env(tree, NAME)
    assert read_lock(tree)[NAME]["execstack_fix"] == "clear_flag"
    library = installed_binary(tree, NAME, U65).parent / "libarmctmodel.so"
    assert _stack_flags(library) == "RW"


def test_fix_is_chosen_by_glibc_version():
    assert execstack.glibc_version("glibc 2.36") == (2, 36)
    assert execstack.glibc_version("musl") is None
    assert execstack.execstack_fix((2, 43)) == execstack.execstack_fix((2, 42)) == "tunable"
    assert execstack.execstack_fix((2, 41)) == execstack.execstack_fix((2, 36)) == "clear_flag"
    assert execstack.execstack_fix(None) == "clear_flag"      # no glibc: the portable fix


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
