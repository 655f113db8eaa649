"""Build inputs (pins.toml [inputs.*], the Vela sdist) through a real HTTP server on 127.0.0.1:
`invoke setup` fetches one from the mirror and records its path, a file failing the pinned
digest is refused and not kept, --offline is served from the cache, and the tool's own process
fetches it on first need with its environment (mirror, scratch). The NPU model's CMake refuses
to configure without the file: nothing is downloaded inside a build."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from setup_fakes import FAST_POLICY, Route, digests

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import repo_root
from orchestrator.setup import inputs
from orchestrator.setup.catalogue import SetupCatalogue, parse_setup_catalogue
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import read_lock
from orchestrator.setup.options import MIRROR_ENV, SetupOptions

NAME = "vela-sdist"
FILE = "ethos_u_vela-9.9.9.tar.gz"
VENDOR = f"https://files.pythonhosted.org/packages/aa/bb/{FILE}"   # never reached: the mirror
BODY = b"regor sources " * 4096


def _catalogue(body: bytes = BODY) -> SetupCatalogue:
    return parse_setup_catalogue({"inputs": {NAME: {"url": VENDOR, **digests(body),
                                                    "needed_for": "npu"}}})


def _options(server, **overrides) -> SetupOptions:
    return SetupOptions(only=(NAME,), mirror=server.base, policy=FAST_POLICY, **overrides)


def test_setup_fetches_the_input_from_the_mirror_and_records_its_path(server, tree):
    server.routes[FILE] = Route(BODY)
    assert run_setup(tree, _options(server), _catalogue()) == 0
    entry = read_lock(tree)[NAME]
    assert entry["kind"] == "input" and entry["path"] == str(tree.downloads / FILE)
    assert Path(entry["path"]).read_bytes() == BODY
    assert entry["verified"] == digests(BODY) and entry["url"] == VENDOR
    assert server.hits.count(FILE) == 1                 # the file name under the mirror base
    assert run_setup(tree, _options(server), _catalogue()) == 0
    assert server.hits.count(FILE) == 1                 # current: nothing fetched again


def test_a_file_failing_the_pinned_digest_is_refused_and_not_kept(server, tree):
    server.routes[FILE] = Route(b"something else entirely")
    with pytest.raises(OrchestratorError, match="failed its digest check") as raised:
        run_setup(tree, _options(server), _catalogue())
    assert f"invoke setup --only {NAME}" in raised.value.message
    assert NAME not in read_lock(tree)
    assert sorted(p.name for p in tree.downloads.iterdir()) == [f".{FILE}.lock"]


def test_offline_setup_is_served_from_the_cache_and_says_when_it_cannot_be(server, tree):
    with pytest.raises(OrchestratorError, match="--offline and .* is not in the cache"):
        run_setup(tree, _options(server, offline=True), _catalogue())
    assert server.hits.count(FILE) == 0
    server.routes[FILE] = Route(BODY)
    run_setup(tree, _options(server), _catalogue())
    (tree.root / "setup.lock.json").unlink()            # a new setup, the cache still there
    server.stop()
    assert run_setup(tree, _options(server, offline=True), _catalogue()) == 0
    assert read_lock(tree)[NAME]["path"] == str(tree.downloads / FILE)
    assert server.hits.count(FILE) == 1


def test_first_need_fetches_with_the_process_environment_and_records_it(server, tree,
                                                                         monkeypatch):
    monkeypatch.setattr(inputs, "pinned_input", lambda name: _catalogue().inputs[name])
    monkeypatch.setenv(MIRROR_ENV, server.base)        # the tree fixture set the scratch
    server.routes[FILE] = Route(BODY)
    path = inputs.input_file(NAME)
    assert path == tree.downloads / FILE and path.read_bytes() == BODY
    assert read_lock(tree)[NAME]["path"] == str(path)   # the next process finds it there
    assert inputs.input_file(NAME) == path and server.hits.count(FILE) == 1
    path.write_bytes(BODY[:-1] + b"!")                  # changed on disk: fetched afresh
    assert inputs.input_file(NAME).read_bytes() == BODY
    assert server.hits.count(FILE) == 2


def test_a_path_handed_to_a_build_step_must_be_the_pinned_file(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs, "pinned_input", lambda name: _catalogue().inputs[name])
    good, bad = tmp_path / "good.tar.gz", tmp_path / "bad.tar.gz"
    good.write_bytes(BODY)
    bad.write_bytes(b"not it")
    assert inputs.checked_input(NAME, good) == good
    with pytest.raises(OrchestratorError, match="build input vela-sdist: .* does not match"):
        inputs.checked_input(NAME, bad)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")
def test_the_npu_model_build_refuses_to_configure_without_the_sdist(tmp_path):
    done = subprocess.run(["cmake", "-S", str(repo_root() / "firmware" / "npu_model"),
                           "-B", str(tmp_path / "build"), "-DNPU_MODEL_SHARED=ON"],
                          capture_output=True, text=True, check=False)
    assert done.returncode != 0
    assert "invoke setup --only vela-sdist" in " ".join(done.stderr.split())
