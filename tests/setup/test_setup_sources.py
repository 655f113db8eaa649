"""Source acquisition from git repositories made here: fetch, export, in place, and refusals."""

from __future__ import annotations

import importlib.metadata
import shutil
import subprocess
from pathlib import Path

import pytest
from setup_fakes import catalogue, make_repo, run_git

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup.checks import checks_for
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import read_lock, source_tree
from orchestrator.setup.options import SetupOptions, SourceRequest

try:
    PACKAGE_VERSION = importlib.metadata.version("executorch").split("+")[0]
except importlib.metadata.PackageNotFoundError:
    PACKAGE_VERSION = "1.4.1"
TAG = f"v{PACKAGE_VERSION}"


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """sub, lib (tag-only pin) and et (pinned tag, submodule at third-party/sub), made once."""
    tmp_path = tmp_path_factory.mktemp("repos")
    sub = tmp_path / "sub"
    sub_commit = make_repo(sub, {"CMakeLists.txt": "sub\n"})
    lib = tmp_path / "lib"
    make_repo(lib, {"include/lib.h": "old\n"}, tag="26.01")
    lib_commit = make_repo(lib, {"include/lib.h": "new\n"}, tag="26.02")
    et = tmp_path / "et"
    old = make_repo(et, {"version.txt": "0.9.0\n", "CMakeLists.txt": "et\n"}, tag="v0.9.0")
    run_git(et, "submodule", "add", "-q", str(sub), "third-party/sub")
    commit = make_repo(et, {"version.txt": f"{PACKAGE_VERSION}\n"}, tag=TAG)
    return {"sub": sub, "sub_commit": sub_commit, "et": et, "et_commit": commit,
            "et_old": old, "lib": lib, "lib_commit": lib_commit}


@pytest.fixture
def repos(template, tmp_path):
    """Private copies of the template repositories (tests may dirty or move them)."""
    copies = dict(template)
    for name in ("et", "lib"):
        copies[name] = tmp_path / name
        shutil.copytree(template[name], copies[name], symlinks=True)
    return copies


def _catalogue(repos):
    return catalogue(sources={
        "et": {"url": f"file://{repos['et']}", "tag": TAG, "commit": repos["et_commit"],
               "package": "executorch", "required_files": ["version.txt", "CMakeLists.txt"]},
        "sub": {"parent": "et", "path": "third-party/sub", "url": f"file://{repos['sub']}",
                "commit": repos["sub_commit"], "required_files": ["CMakeLists.txt"]},
        "lib": {"url": f"file://{repos['lib']}", "tag": "26.02", "needed_for": "npu",
                "required_files": ["include/lib.h"]},
    })


def _setup(tree, repos, **options):
    options = {"only": ("sources",), **options}
    return run_setup(tree, SetupOptions(**options), _catalogue(repos), host="linux-x86_64")


def _bare(path: Path, tmp_path: Path) -> Path:
    bare = tmp_path / f"{path.name}.git"
    run_git(tmp_path, "clone", "-q", "--bare", str(path), str(bare))
    return bare


def test_fetch_at_the_pinned_revision_with_submodules(tree, repos):
    _setup(tree, repos)
    lock = read_lock(tree)
    et = source_tree(tree, "et")
    assert et == tree.src / "et" and lock["et"]["commit"] == repos["et_commit"]
    assert run_git(et, "rev-parse", "HEAD") == repos["et_commit"]
    assert (et / "third-party" / "sub" / "CMakeLists.txt").read_text() == "sub\n"
    assert source_tree(tree, "sub") == et / "third-party" / "sub"
    assert lock["sub"]["commit"] == repos["sub_commit"] and lock["sub"]["parent"] == "et"
    assert lock["lib"]["commit"] == repos["lib_commit"] and lock["lib"]["pin_match"]


def test_second_run_is_a_no_op(tree, repos, capsys):
    _setup(tree, repos)
    marker = (tree.src / "et" / ".orchestrator-install.json").stat().st_mtime_ns
    _setup(tree, repos)
    assert "nothing to do" in capsys.readouterr().out
    assert (tree.src / "et" / ".orchestrator-install.json").stat().st_mtime_ns == marker


def test_forcing_a_submodule_refetches_its_parent(tree, repos):
    _setup(tree, repos)
    marker = tree.src / "et" / ".orchestrator-install.json"
    before = marker.stat().st_mtime_ns
    _setup(tree, repos, force=frozenset({"sub"}))
    assert marker.stat().st_mtime_ns != before
    assert read_lock(tree)["sub"]["commit"] == repos["sub_commit"]


def test_offline_without_local_sources_is_refused(tree, repos):
    with pytest.raises(OrchestratorError, match="--offline and .* is not set up; next: .*"
                                                "--source"):
        _setup(tree, repos, offline=True)


def test_export_from_bare_repositories(tree, repos, tmp_path):
    requests = {"et": SourceRequest(_bare(repos["et"], tmp_path)),
                "sub": SourceRequest(_bare(repos["sub"], tmp_path)),
                "lib": SourceRequest(_bare(repos["lib"], tmp_path))}
    _setup(tree, repos, sources=requests, offline=True)
    lock = read_lock(tree)
    assert lock["et"]["origin"] == "export" and lock["et"]["commit"] == repos["et_commit"]
    assert not (tree.src / "et" / ".git").exists()
    assert (tree.src / "et" / "third-party" / "sub" / "CMakeLists.txt").is_file()
    assert (tree.src / "lib" / "include" / "lib.h").read_text() == "new\n"


def test_export_skips_blobs_a_snapshot_lacks(tree, repos, tmp_path):
    make_repo(repos["et"], {"docs/big.gif": "pretend this is large\n"})
    run_git(repos["et"], "tag", "-f", TAG)
    bare = _bare(repos["et"], tmp_path)
    _drop_object(bare, run_git(bare, "rev-parse", f"{TAG}:docs/big.gif"))
    cat = catalogue(sources={"et": {"url": "unused", "tag": TAG,
                                    "required_files": ["version.txt"]}})
    run_setup(tree, SetupOptions(only=("et",), sources={"et": SourceRequest(bare)}), cat,
              host="linux-x86_64")
    assert read_lock(tree)["et"]["omitted"] == ["docs/big.gif"]
    assert (tree.src / "et" / "version.txt").is_file()


def _drop_object(bare: Path, blob: str) -> None:
    """Repack the repository without one blob (like a snapshot that lacks large files)."""
    objects = run_git(bare, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)")
    keep = "".join(f"{oid}\n" for oid in objects.splitlines() if oid != blob)
    pack_dir = bare / "objects" / "pack"
    old = list(pack_dir.iterdir())
    subprocess.run(["git", "pack-objects", "-q", str(pack_dir / "pack")], cwd=bare, input=keep,
                   text=True, check=True, capture_output=True)
    for path in old:
        path.unlink()
    shutil.rmtree(bare / "objects" / "info", ignore_errors=True)
    for loose in bare.glob("objects/??"):
        shutil.rmtree(loose)


def test_user_directory_is_used_in_place(tree, repos):
    requests = {"et": SourceRequest(repos["et"]), "lib": SourceRequest(repos["lib"])}
    _setup(tree, repos, sources=requests, offline=True)
    assert source_tree(tree, "et") == repos["et"]
    assert source_tree(tree, "sub") == repos["et"] / "third-party" / "sub"
    assert not (tree.src / "et").exists()


def test_user_directory_at_the_wrong_tag_is_refused(tree, repos):
    run_git(repos["et"], "checkout", "-q", "v0.9.0")
    with pytest.raises(OrchestratorError, match=f"is at {repos['et_old'][:12]}, not the "
                                                f"pinned {TAG}; next: invoke setup"):
        _setup(tree, repos, sources={"et": SourceRequest(repos["et"])}, only=("et",))
    assert "et" not in read_lock(tree)


def test_dirty_user_directory_is_refused_unless_allowed(tree, repos):
    (repos["et"] / "CMakeLists.txt").write_text("local edit\n")
    requests = {"et": SourceRequest(repos["et"])}
    with pytest.raises(OrchestratorError, match="uncommitted changes in 1 file.*CMakeLists.txt"
                                                ".*--allow-dirty"):
        _setup(tree, repos, sources=requests, only=("et",))
    _setup(tree, repos, sources=requests, only=("et",), allow_dirty=True)
    assert read_lock(tree)["et"]["dirty"] is True


def test_uninitialised_submodule_in_a_user_directory_names_the_fix(tree, repos):
    run_git(repos["et"], "submodule", "deinit", "-q", "-f", "third-party/sub")
    with pytest.raises(OrchestratorError, match="submodule update --init third-party/sub"):
        _setup(tree, repos, sources={"et": SourceRequest(repos["et"])}, only=("et",))


def test_repository_without_the_pinned_tag_needs_explicit_consent(tree, repos, tmp_path):
    fork = tmp_path / "fork"
    fork_commit = make_repo(fork, {"include/lib.h": "fork\n"})
    request = {"lib": SourceRequest(fork, "main")}
    with pytest.raises(OrchestratorError, match="not the pinned 26.02.*--allow-unpinned lib"):
        _setup(tree, repos, sources=request, only=("lib",))
    _setup(tree, repos, sources=request, only=("lib",), allow_unpinned=frozenset({"lib"}))
    entry = read_lock(tree)["lib"]
    assert entry["commit"] == fork_commit and entry["pin_match"] is False
    rows = {row.name: row for row in checks_for(tree, _catalogue(repos), [])}
    assert rows["lib source"].ok and "accepted by the user" in rows["lib source"].detail


def test_package_and_source_versions_must_match(tree, repos):
    if PACKAGE_VERSION == "1.4.1" and not _has_executorch():
        pytest.skip("executorch package not installed: nothing to compare against")
    cat = catalogue(sources={"et": {"url": f"file://{repos['et']}", "tag": "v0.9.0",
                                    "commit": repos["et_old"], "package": "executorch"}})
    with pytest.raises(OrchestratorError, match="pip install executorch==0.9.0"):
        run_setup(tree, SetupOptions(only=("et",), allow_unpinned=frozenset({"sub"})), cat,
                  host="linux-x86_64")
    assert not (tree.src / "et").exists()


def _has_executorch() -> bool:
    try:
        importlib.metadata.version("executorch")
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


def test_submodule_from_a_user_repository_at_another_commit_is_refused(tree, repos, tmp_path):
    other = tmp_path / "other-sub"
    shutil.copytree(repos["sub"], other)
    make_repo(other, {"CMakeLists.txt": "changed\n"})
    requests = {"et": SourceRequest(_bare(repos["et"], tmp_path)),
                "sub": SourceRequest(other, "main")}
    with pytest.raises(OrchestratorError, match="not .*--allow-unpinned sub"):
        _setup(tree, repos, sources=requests, only=("et",))
    assert not (tree.src / "et").exists()


def test_a_plain_rerun_keeps_sources_given_earlier(tree, repos, tmp_path):
    requests = {"et": SourceRequest(_bare(repos["et"], tmp_path)),
                "sub": SourceRequest(_bare(repos["sub"], tmp_path))}
    _setup(tree, repos, sources=requests, only=("et",), offline=True)
    _setup(tree, repos, only=("et",), offline=True)       # no --source: nothing to redo
    assert read_lock(tree)["et"]["origin"] == "export"


def test_a_different_submodule_request_redoes_the_parent(tree, repos, tmp_path):
    bare_et, bare_sub = _bare(repos["et"], tmp_path), _bare(repos["sub"], tmp_path)
    _setup(tree, repos, only=("et",), offline=True,
           sources={"et": SourceRequest(bare_et), "sub": SourceRequest(bare_sub)})
    other = tmp_path / "sub-copy.git"
    shutil.copytree(bare_sub, other)
    _setup(tree, repos, only=("et",), offline=True,
           sources={"et": SourceRequest(bare_et), "sub": SourceRequest(other)})
    assert read_lock(tree)["sub"]["request"]["path"] == str(other)
