"""`--model NAME` takes upstream's examples/models names (MODEL_NAME_TO_MODEL of the installed
ExecuTorch): the rule where a built-in has the same name, the listing, seeded loads recorded
in the product key, and the one-sentence refusals (missing package, weights fetched outside
the tool, pretrained weights not installed)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.aot.api import request_for
from orchestrator.aot.models.catalogue import (
    MODELS_PATH,
    load_model_catalogue,
    parse_model_catalogue,
    refuse_missing_packages,
    weight_path,
)
from orchestrator.aot.models.loading import load_model
from orchestrator.aot.models.sources import BUILTINS, resolve_model
from orchestrator.aot.models.upstream_loading import load_upstream
from orchestrator.commands.models import models_command
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import load_toml
from orchestrator.options.compile import CompileChoices

if importlib.util.find_spec("executorch.examples.models") is None:
    pytest.skip("executorch is not installed (pip install -e '.[aot]')",
                allow_module_level=True)

from executorch.examples.models import MODEL_NAME_TO_MODEL  # noqa: E402

torch = pytest.importorskip("torch")


def test_every_upstream_name_resolves_and_a_builtin_name_stays_the_builtin():
    for name, (module, cls) in MODEL_NAME_TO_MODEL.items():
        forced = resolve_model(f"upstream:{name}")
        assert (forced.kind, forced.location) == ("upstream", f"{module}:{cls}")
        plain = resolve_model(name)
        assert plain.kind == ("builtin" if name in BUILTINS else "upstream")
    assert resolve_model("mv2").kind == "builtin"
    assert resolve_model("upstream:mv2").name == "upstream:mv2"
    assert resolve_model("ds_cnn").name == "ds_cnn"


def test_unknown_names_suggest_the_close_ones():
    with pytest.raises(OrchestratorError, match="unknown model 'mv4'.*did you mean"):
        resolve_model("mv4")
    with pytest.raises(OrchestratorError, match="unknown upstream model 'convnet'"):
        resolve_model("upstream:convnet")


def test_the_data_names_real_models_only():
    data = load_toml(MODELS_PATH)
    assert set(data["builtin"]) == set(BUILTINS)
    assert set(data["upstream"]) <= set(MODEL_NAME_TO_MODEL)
    for row in data["upstream"].values():
        assert set(row.get("weights", [])) <= set(data["weights"])
    for weight in data["weights"].values():   # torchvision's names carry the hash prefix
        if weight["store"] == "torch-hub":
            stem = weight["url"].rsplit("/", 1)[-1].split(".")[0]
            assert weight["sha256_prefix"] and stem.endswith("-" + weight["sha256_prefix"])


def test_listing_shows_every_model_with_its_facts(capsys):
    assert models_command(json=True) == 0
    document = json.loads(capsys.readouterr().out)
    listed = {model["select"]: model for model in document["models"]}
    expected = {*BUILTINS, *(f"upstream:{n}" if n in BUILTINS else n
                             for n in MODEL_NAME_TO_MODEL)}
    assert set(listed) == expected
    assert "upstream:NAME" in document["rule"] and document["seed"] == 0
    mv3 = listed["mv3"]
    assert mv3["packages"] == [{"name": "torchvision", "extra": "models"}]
    assert mv3["downloads_weights"] is True and mv3["weights"][0]["pinned"] is False
    assert listed["ds_cnn"]["packages"] == [] and listed["ds_cnn"]["downloads_weights"] is False
    assert set(listed["add"]["known"]) == {"ethos-u55", "ethos-u65", "ethos-u85"}
    assert models_command() == 0
    assert "upstream:mv2" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["lstm", "ds_cnn", "deep_autoencoder"])
def test_unseeded_upstream_models_load_the_same_twice(name, tree):
    torch.manual_seed(1234)
    before = torch.rand(1)
    torch.manual_seed(1234)
    first, first_inputs = load_upstream(resolve_model(name))   # as upstream returns them
    second, second_inputs = load_upstream(resolve_model(name))
    assert torch.equal(torch.rand(1), before)          # the caller's RNG is left alone
    for key, value in first.state_dict().items():
        assert torch.equal(value, second.state_dict()[key])
    leaves = torch.utils._pytree.tree_leaves
    assert all(torch.equal(a, b) for a, b in zip(leaves(first_inputs), leaves(second_inputs),
                                                 strict=True))
    if name == "lstm":    # (x, (h0, c0)) stays nested: the loader does not flatten it
        assert isinstance(first_inputs[1], tuple) and len(first_inputs[1]) == 2


def test_the_seed_and_weights_are_in_the_product_key():
    request = request_for("ds_cnn", "ethos-u85-128")
    model = request.identity()["model"]
    assert (model["seed"], model["weights"], model["packages"]) == (0, "seeded", [])
    assert request.key() == request_for("ds_cnn", "ethos-u85-128").key()
    pretrained = request_for("mv3", "ethos-u85-128")
    random = request_for("mv3", "ethos-u85-128", CompileChoices(random_weights=True))
    assert pretrained.identity()["model"]["weights"] == "pretrained"
    assert random.identity()["model"]["weights"] == "random"
    assert pretrained.key() != random.key()
    assert "seed" not in request_for("add", "ethos-u85-128").identity()["model"]


def test_a_missing_package_names_the_extra_to_install():
    data = {"extras": {"no_such_vision_pkg": "models"},
            "upstream": {"fancy": {"packages": ["no_such_vision_pkg", "no_such_other_pkg"]}}}
    catalogue = parse_model_catalogue(data, {"fancy": ("fancy", "FancyModel")})
    with pytest.raises(OrchestratorError) as refused:
        refuse_missing_packages(catalogue.upstream["fancy"], catalogue)
    assert refused.value.cause == ("model fancy needs no_such_vision_pkg, no_such_other_pkg, "
                                   "which are not installed")
    assert refused.value.next_step == ("pip install -e '.[models]' and "
                                       "pip install no_such_other_pkg")


def test_weights_fetched_outside_the_tool_are_refused(tree):
    with pytest.raises(OrchestratorError, match="cannot be loaded here: it downloads "
                                                "efficient_sam_vitt.pt"):
        load_model(resolve_model("efficient_sam"))


def test_missing_pretrained_weights_are_refused_in_one_sentence(tree):
    with pytest.raises(OrchestratorError) as refused:
        load_model(resolve_model("mv3"))
    assert "pretrained weights of model mv3 (mobilenet_v3_small-047dcff4.pth) are not " \
           "installed" in refused.value.cause
    assert refused.value.next_step.startswith("invoke setup --models mv3")
    assert "--random-weights" in refused.value.next_step


def test_torchvision_model_loads_installed_weights_or_seeded_random_ones(tree, monkeypatch):
    from torchvision_without_c_ops import import_torchvision_models_without_c_ops

    models = import_torchvision_models_without_c_ops()
    weight = load_model_catalogue().upstream["mv3"].weights[0]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(99)
        saved = models.mobilenet_v3_small().state_dict()
    path = weight_path(tree.weights, weight)
    path.parent.mkdir(parents=True)
    torch.save(saved, path)
    pin_as_installed(monkeypatch, weight.name, path)
    pretrained, _ = load_model(resolve_model("mv3"))
    assert all(torch.equal(value, pretrained.state_dict()[key])
               for key, value in saved.items())
    random_one, inputs = load_model(resolve_model("mv3", random_weights=True))
    again, inputs_again = load_model(resolve_model("mv3", random_weights=True))
    first_key = next(iter(saved))
    assert not torch.equal(random_one.state_dict()[first_key], saved[first_key])
    assert torch.equal(random_one.state_dict()[first_key], again.state_dict()[first_key])
    assert torch.equal(inputs[0], inputs_again[0]) and inputs[0].shape == (1, 3, 224, 224)


def pin_as_installed(monkeypatch: pytest.MonkeyPatch, name: str, path: Path) -> None:
    """The test's stand-in weight file is what the pin names (the pinned file cannot be
    downloaded here; a damaged file's refusal has tests of its own)."""
    from orchestrator.aot.models import upstream_loading

    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    check = upstream_loading.damaged_weights
    monkeypatch.setattr(upstream_loading, "damaged_weights", lambda weights, root: check(
        tuple(replace(w, sha256=digest) if w.name == name else w for w in weights), root))


def test_timm_model_loads_seeded_random_weights_only_when_asked(tree):
    from torchvision_without_c_ops import import_torchvision_models_without_c_ops

    import_torchvision_models_without_c_ops()      # timm imports torchvision
    pytest.importorskip("timm")
    with pytest.raises(OrchestratorError) as refused:
        load_model(resolve_model("deit_tiny"))
    assert refused.value.next_step.startswith("invoke setup --models deit_tiny "
                                              "--allow-unpinned=deit_tiny_patch16_224.fb_in1k")
    first, inputs = load_model(resolve_model("deit_tiny", random_weights=True))
    second, _ = load_model(resolve_model("deit_tiny", random_weights=True))
    assert type(first).__name__ == "VisionTransformer" and inputs[0].shape == (1, 3, 224, 224)
    assert all(torch.equal(value, second.state_dict()[key])
               for key, value in first.state_dict().items())


def test_a_download_the_data_does_not_record_is_refused_while_loading(tree, monkeypatch):
    from torchvision_without_c_ops import import_torchvision_models_without_c_ops

    import orchestrator.aot.models.upstream_loading as loading

    import_torchvision_models_without_c_ops()
    unrecorded = parse_model_catalogue({"upstream": {"mv3": {"packages": ["torchvision"]}}},
                                       {"mv3": MODEL_NAME_TO_MODEL["mv3"]})
    monkeypatch.setattr(loading, "load_model_catalogue", lambda: unrecorded)
    ref = resolve_model("mv3")
    with pytest.raises(OrchestratorError) as refused:
        load_upstream(type(ref)(**{**ref.__dict__, "weights": "seeded"}))
    assert refused.value.cause.startswith("model mv3 tried to download https://download."
                                          "pytorch.org/models/mobilenet_v3_small-047dcff4.pth")
    assert not list(tree.weights.rglob("*.pth"))


def test_timm_pretrained_weights_come_from_setup_through_a_mirror(tree, file_server):
    from torchvision_without_c_ops import import_torchvision_models_without_c_ops

    from orchestrator.setup.options import SetupOptions
    from orchestrator.setup.weights import install_model_weights

    import_torchvision_models_without_c_ops()      # timm imports torchvision
    timm = pytest.importorskip("timm")
    safetensors_torch = pytest.importorskip("safetensors.torch")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(5)
        saved = timm.create_model("deit_tiny_patch16_224", pretrained=False).state_dict()
    weight = load_model_catalogue().upstream["deit_tiny"].weights[0]
    safetensors_torch.save_file(saved, str(file_server.directory / weight.filename))
    options = SetupOptions(models=("deit_tiny",), mirror=file_server.url,
                           allow_unpinned=frozenset({weight.name}))
    entry = install_model_weights(("deit_tiny",), options, tree)[f"weights:{weight.name}"]
    assert entry["verified"].startswith("nothing")
    assert (tree.weights / "hf-hub" / "models--timm--deit_tiny_patch16_224.fb_in1k" / "refs"
            / "main").is_file()
    model, _ = load_model(resolve_model("deit_tiny"))
    assert all(torch.equal(value, model.state_dict()[key]) for key, value in saved.items())


def test_a_package_failing_while_its_downloader_is_replaced_is_one_sentence(tree, monkeypatch):
    """The weights context imports the model's packages (to replace their downloaders); a
    package that raises there (torchvision built for another torch: RuntimeError) is the same
    one-line refusal as one failing in the model's code, so a batch compile goes on."""
    import contextlib

    import orchestrator.aot.models.upstream_loading as loading

    @contextlib.contextmanager
    def broken_package(*_args, **_kwargs):
        raise RuntimeError("operator torchvision::nms does not exist")
        yield

    monkeypatch.setattr(loading, "downloads_replaced", broken_package)
    with pytest.raises(OrchestratorError) as refused:
        load_upstream(resolve_model("deit_tiny", random_weights=True))
    assert refused.value.cause == ("loading upstream model deit_tiny (deit_tiny:DeiTTinyModel) "
                                   "failed: RuntimeError: operator torchvision::nms does not "
                                   "exist")
    assert "built for the installed torch" in refused.value.next_step
