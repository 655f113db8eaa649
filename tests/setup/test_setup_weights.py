"""`invoke setup --models NAME`: pretrained weights through the tool's own downloader, from a
real HTTP server on 127.0.0.1: pinned digest, mirror, offline cache, unpinned files."""

from __future__ import annotations

import hashlib

import pytest
from setup_fakes import FAST_POLICY, Route

from orchestrator.aot.models.catalogue import (
    ModelCatalogue,
    missing_weights,
    parse_model_catalogue,
    weight_path,
)
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.setup.lock import read_lock
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.weights import install_model_weights

BODY = b"pretend checkpoint bytes " * 64
SHA256 = hashlib.sha256(BODY).hexdigest()
TABLE = {"tiny": ("tiny_module", "TinyModel"), "untrained": ("tiny_module", "Untrained"),
         "hubbed": ("tiny_module", "Hubbed")}


def _catalogue(url: str, sha256: str = SHA256, prefix: str = "") -> ModelCatalogue:
    data = {"upstream": {"tiny": {"packages": [], "weights": ["tiny-w"]},
                         "untrained": {"packages": []},
                         "hubbed": {"packages": ["transformers"],
                                    "fetches": "transformers downloads it"}},
            "weights": {"tiny-w": {"url": url, "sha256": sha256, "sha256_prefix": prefix}}}
    return parse_model_catalogue(data, TABLE)


def _options(**overrides) -> SetupOptions:
    return SetupOptions(**{"models": ("tiny",), "policy": FAST_POLICY, **overrides})


def test_pinned_weights_install_where_torch_hub_looks(server, tree):
    server.routes["models/tiny-0123.pth"] = Route(BODY)
    catalogue = _catalogue(server.url("/models/tiny-0123.pth"))
    installed = install_model_weights(("tiny",), _options(), tree, catalogue)
    weight = catalogue.weights["tiny-w"]
    path = weight_path(tree.weights, weight)
    assert path == tree.weights / "torch-hub" / "checkpoints" / "tiny-0123.pth"
    assert path.read_bytes() == BODY and missing_weights((weight,), tree.weights) == []
    entry = read_lock(tree)["weights:tiny-w"]
    assert installed["weights:tiny-w"] == entry
    assert entry["sha256"] == SHA256 and entry["pinned"] is True and entry["model"] == "tiny"


def test_digest_mismatch_is_refused_and_nothing_installed(server, tree):
    server.routes["tiny-0123.pth"] = Route(b"tampered" + BODY)
    catalogue = _catalogue(server.url("/tiny-0123.pth"))
    with pytest.raises(OrchestratorError, match="failed its digest check"):
        install_model_weights(("tiny",), _options(), tree, catalogue)
    assert missing_weights(tuple(catalogue.weights.values()), tree.weights) == ["tiny-0123.pth"]
    assert not list(tree.downloads.glob("tiny-0123.pth*"))
    assert "weights:tiny-w" not in read_lock(tree)


def test_mirror_is_used_instead_of_the_vendor_url(server, tree):
    server.routes["mirror/tiny-0123.pth"] = Route(BODY)
    catalogue = _catalogue("https://download.example.invalid/models/tiny-0123.pth")
    install_model_weights(("tiny",), _options(mirror=server.url("/mirror")), tree, catalogue)
    assert server.hits.count("mirror/tiny-0123.pth") == 1
    assert weight_path(tree.weights, catalogue.weights["tiny-w"]).read_bytes() == BODY


def test_offline_uses_the_download_cache_and_fails_without_it(server, tree):
    catalogue = _catalogue("https://download.example.invalid/models/tiny-0123.pth")
    with pytest.raises(OrchestratorError, match="--offline and tiny-0123.pth is not in the "
                                                "cache") as refused:
        install_model_weights(("tiny",), _options(offline=True), tree, catalogue)
    assert "--mirror URL" in refused.value.next_step
    tree.downloads.mkdir(parents=True, exist_ok=True)
    (tree.downloads / "tiny-0123.pth").write_bytes(BODY)       # a copy brought by hand
    install_model_weights(("tiny",), _options(offline=True), tree, catalogue)
    assert weight_path(tree.weights, catalogue.weights["tiny-w"]).read_bytes() == BODY
    assert server.hits.requests == []


def test_unpinned_weights_are_refused_unless_allowed_then_prefix_checked(server, tree):
    server.routes["tiny-0123.pth"] = Route(BODY)
    url = server.url("/tiny-0123.pth")
    catalogue = _catalogue(url, sha256="", prefix=SHA256[:8])
    with pytest.raises(OrchestratorError, match="no verified sha256") as refused:
        install_model_weights(("tiny",), _options(), tree, catalogue)
    assert "--allow-unpinned=tiny-w" in refused.value.next_step
    assert server.hits.requests == []
    installed = install_model_weights(("tiny",), _options(allow_unpinned=frozenset({"tiny-w"})),
                                      tree, catalogue)
    entry = installed["weights:tiny-w"]
    assert entry["sha256"] == SHA256 and entry["pinned"] is False
    assert entry["verified"] == f"sha256 prefix {SHA256[:8]}"
    wrong = _catalogue(url, sha256="", prefix="00000000" if SHA256[:8] != "00000000" else "1")
    with pytest.raises(OrchestratorError, match="prefix expected"):
        install_model_weights(("tiny",), _options(allow_unpinned=True, force=True), tree, wrong)


def test_models_without_managed_weights(tree, capsys):
    catalogue = _catalogue("http://127.0.0.1:9/unused.pth")
    assert install_model_weights(("untrained",), _options(), tree, catalogue) == {}
    assert "has no pretrained weights" in capsys.readouterr().err
    with pytest.raises(OrchestratorError, match="cannot be installed by this tool: "
                                                "transformers downloads it"):
        install_model_weights(("hubbed",), _options(), tree, catalogue)
    with pytest.raises(OrchestratorError, match="unknown model 'tinny'.*did you mean tiny"):
        install_model_weights(("tinny",), _options(), tree, catalogue)


def test_setup_models_alone_touches_nothing_else(tree, capsys):
    pytest.importorskip("executorch.examples.models")
    from orchestrator.setup.catalogue import load_setup_catalogue
    from orchestrator.setup.installation import run_setup

    assert run_setup(tree, _options(models=("ds_cnn",)), load_setup_catalogue()) == 0
    assert read_lock(tree) == {}      # no toolchain, FVP or source was selected
    assert "model ds_cnn has no pretrained weights" in capsys.readouterr().err
    with pytest.raises(OrchestratorError, match="mobilenet_v3_small-047dcff4.pth of model "
                                                "mv3 have no verified sha256"):
        run_setup(tree, _options(models=("mv3",)), load_setup_catalogue())


def test_a_torchaudio_asset_goes_where_torchaudio_looks_and_no_digest_is_said(server, tree):
    server.routes["torchaudio/models/rnnt.pt"] = Route(BODY)
    data = {"upstream": {"speech": {"packages": [], "weights": ["rnnt"]}},
            "weights": {"rnnt": {"url": "https://download.pytorch.org/torchaudio/models/rnnt.pt",
                                 "sha256": "", "sha256_prefix": "", "store": "torchaudio"}}}
    catalogue = parse_model_catalogue(data, {"speech": ("speech_module", "Speech")})
    options = _options(models=("speech",), mirror=server.url("torchaudio/models"))
    with pytest.raises(OrchestratorError, match="nor does its file name carry a hash"):
        install_model_weights(("speech",), options, tree, catalogue)
    allowed = _options(models=("speech",), mirror=server.url("torchaudio/models"),
                       allow_unpinned=frozenset({"rnnt"}))
    entry = install_model_weights(("speech",), allowed, tree, catalogue)["weights:rnnt"]
    assert entry["verified"].startswith("nothing") and entry["sha256"] == SHA256
    assert (tree.weights / "torch-hub" / "torchaudio" / "models" / "rnnt.pt").read_bytes() == BODY


def test_installed_weights_with_a_flipped_byte_are_refused_on_use_then_set_up_again(
        server, tree):
    """A use (the model's load) hashes the installed weights: a flipped byte is named in one
    line and the file removed, never loaded; setup then places the cached good copy."""
    from types import SimpleNamespace

    from orchestrator.aot.models.catalogue import damaged_weights
    from orchestrator.aot.models.upstream_loading import _refuse_damaged

    server.routes["models/tiny-0123.pth"] = Route(BODY)
    catalogue = _catalogue(server.url("/models/tiny-0123.pth"))
    install_model_weights(("tiny",), _options(), tree, catalogue)
    weight = catalogue.weights["tiny-w"]
    path = weight_path(tree.weights, weight)
    data = bytearray(path.read_bytes())
    data[7] ^= 0x20
    path.write_bytes(bytes(data))
    assert damaged_weights((weight,), tree.weights) == [path]
    with pytest.raises(OrchestratorError) as caught:
        _refuse_damaged(SimpleNamespace(name="tiny"), catalogue.upstream["tiny"], tree.weights)
    assert "differs from its pinned sha256: removed" in caught.value.cause
    assert "\n" not in caught.value.message and not path.exists()
    install_model_weights(("tiny",), _options(), tree, catalogue)
    assert path.read_bytes() == BODY and damaged_weights((weight,), tree.weights) == []
