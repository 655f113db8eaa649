"""Downloads through a real HTTP server: happy path, digests, resume, retries, 404, offline."""

from __future__ import annotations

import pytest
from setup_fakes import (
    FAST_POLICY,
    Route,
    catalogue,
    free_port,
    make_tar,
    toolchain_members,
    toolchain_pin,
)

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup.download import Request, cached_file, mirrored_url
from orchestrator.setup.installation import run_setup
from orchestrator.setup.lock import installed_binary, read_lock
from orchestrator.setup.options import SetupOptions

TOP = "arm-gnu-toolchain-test"
FILE = "arm-gnu-toolchain-test.tar.xz"


def _options(**overrides) -> SetupOptions:
    return SetupOptions(only=("toolchain",), toolchain_provider="arm", policy=FAST_POLICY,
                        **overrides)


def _serve_toolchain(server, extra=0, **route):
    data = make_tar(toolchain_members(TOP, extra=extra, incompressible=True), "tar.xz")
    server.routes[FILE] = Route(data, **route)
    return data, catalogue({"toolchain": toolchain_pin(server.url(FILE), data, TOP)})


def _nothing_installed(tree) -> None:
    assert "toolchain" not in read_lock(tree)
    assert not (tree.tools / "toolchain").exists()
    assert [p.name for p in tree.tools.iterdir()] == []


def test_happy_path_installs_and_records_absolute_paths(server, tree):
    _data, cat = _serve_toolchain(server)
    assert run_setup(tree, _options(), cat, host="linux-x86_64") == 0
    entry = read_lock(tree)["toolchain"]
    gcc = installed_binary(tree, "toolchain", "arm-none-eabi-gcc")
    assert gcc == tree.tools / "toolchain" / TOP / "bin" / "arm-none-eabi-gcc"
    assert (entry["provider"], entry["version"]) == ("arm", "15.2.rel1")
    assert entry["gcc_version"] == "15.2.1"
    assert set(entry["verified"]) == {"sha256", "md5"}
    assert (tree.downloads / FILE).is_file()


def test_second_run_is_a_no_op(server, tree):
    _data, cat = _serve_toolchain(server)
    run_setup(tree, _options(), cat, host="linux-x86_64")
    marker = tree.tools / "toolchain" / ".orchestrator-install.json"
    before = (server.hits.count(FILE), marker.stat().st_mtime_ns)
    run_setup(tree, _options(), cat, host="linux-x86_64")
    assert (server.hits.count(FILE), marker.stat().st_mtime_ns) == before


def test_digest_mismatch_deletes_the_file_and_installs_nothing(server, tree):
    _data, cat = _serve_toolchain(server)
    server.routes[FILE].body = make_tar(toolchain_members(TOP, version="666"), "tar.xz")
    with pytest.raises(OrchestratorError, match="digest check.*deleted.*nothing was installed"):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    assert list(tree.downloads.glob(f"{FILE}*")) == []
    _nothing_installed(tree)


def test_truncated_transfer_resumes_with_a_range_request(server, tree):
    data, cat = _serve_toolchain(server, extra=100, truncate_first=1)   # ~200 KiB
    run_setup(tree, _options(), cat, host="linux-x86_64")
    ranges = [rng for path, rng in server.hits.requests if path == FILE]
    assert len(ranges) == 2 and ranges[0] == ""
    resumed_at = int(ranges[1].removeprefix("bytes=").removesuffix("-"))
    assert 0 < resumed_at <= len(data) // 2
    assert (tree.downloads / FILE).read_bytes() == data


def test_server_errors_are_retried_until_success(server, tree):
    _data, cat = _serve_toolchain(server, fail_first=3)
    run_setup(tree, _options(), cat, host="linux-x86_64")
    assert server.hits.count(FILE) == 4
    assert "toolchain" in read_lock(tree)


def test_persistent_server_errors_give_up_with_the_next_step(server, tree):
    _data, cat = _serve_toolchain(server, fail_first=99)
    with pytest.raises(OrchestratorError, match="failed 4 times.*HTTP 500.*next: invoke setup"):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    _nothing_installed(tree)


def test_404_fails_at_once(server, tree):
    _data, cat = _serve_toolchain(server, status=404)
    with pytest.raises(OrchestratorError, match="HTTP 404, nothing was installed; next: "):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    assert server.hits.count(FILE) == 1
    _nothing_installed(tree)


def test_server_down_is_a_clear_error(tree):
    url = f"http://127.0.0.1:{free_port()}/{FILE}"
    data = make_tar(toolchain_members(TOP), "tar.xz")
    cat = catalogue({"toolchain": toolchain_pin(url, data, TOP)})
    with pytest.raises(OrchestratorError, match="ConnectionError.*next: invoke setup --only "
                                                "toolchain --archive"):
        run_setup(tree, _options(), cat, host="linux-x86_64")
    _nothing_installed(tree)


def test_offline_uses_only_the_cache(server, tree):
    _data, cat = _serve_toolchain(server)
    with pytest.raises(OrchestratorError, match="--offline and .* is not in the cache"):
        run_setup(tree, _options(offline=True), cat, host="linux-x86_64")
    assert server.hits.requests == []
    run_setup(tree, _options(), cat, host="linux-x86_64")           # fills the cache
    run_setup(tree, _options(offline=True, force=True), cat, host="linux-x86_64")
    assert server.hits.count(FILE) == 1


def test_mirror_replaces_the_vendor_host(server, tree):
    data = make_tar(toolchain_members(TOP), "tar.xz")
    server.routes[f"mirror/{FILE}"] = Route(data)
    vendor = f"http://127.0.0.1:{free_port()}/vendor/path/{FILE}"   # unreachable on purpose
    cat = catalogue({"toolchain": toolchain_pin(vendor, data, TOP)})
    run_setup(tree, _options(mirror=server.url("mirror/")), cat, host="linux-x86_64")
    assert server.hits.count(f"mirror/{FILE}") == 1
    assert mirrored_url(vendor, "http://m/x/") == f"http://m/x/{FILE}"


def test_local_archive_is_verified_and_never_deleted(tmp_path, tree):
    data = make_tar(toolchain_members(TOP), "tar.xz")
    local = tmp_path / FILE
    local.write_bytes(data)
    cat = catalogue({"toolchain": toolchain_pin("http://127.0.0.1:9/x/" + FILE, data, TOP)})
    run_setup(tree, _options(archives={"toolchain": local}, offline=True), cat,
              host="linux-x86_64")
    assert "toolchain" in read_lock(tree)
    local.write_bytes(data[:-10])
    with pytest.raises(OrchestratorError, match="does not match the pinned digest"):
        run_setup(tree, _options(archives={"toolchain": local}, force=True), cat,
                  host="linux-x86_64")
    assert local.is_file()


def test_corrupt_cached_file_is_replaced(server, tree):
    data, _cat = _serve_toolchain(server)
    tree.downloads.mkdir(parents=True, exist_ok=True)
    (tree.downloads / FILE).write_bytes(b"garbage")
    from setup_fakes import digests
    request = Request(server.url(FILE), FILE, digests(data), "hint")
    assert cached_file(tree.downloads, request, policy=FAST_POLICY).read_bytes() == data
