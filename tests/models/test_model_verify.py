"""Upstream's Ethos-U model suite through `invoke verify` (compile with ExecuTorch and Vela,
every NPU partition on the NPU model against the TOSA reference model): no sources
needed. One MLPerf Tiny model by default (CI); with -m sweep the offline tier, every model of
the peer matrix's host lanes (examples/regress/peers.toml: by upstream name, seeded random
weights where upstream's have pretrained ones) plus the model files of upstream's tests that
examples/models does not name (models.toml [model_files]), on U55-128 and U85-128 (the MLPerf
Tiny four on U65-256 too). Each is expected exact unless models.toml's `known` says where it
stops (a strict xfail: the day it passes, the data must say so).

torchvision's and torchaudio's C extensions do not load with this machine's CPU torch: the
models that import them are loaded through test helpers (torchvision_without_c_ops,
torchaudio_models_by_path), never by the tool itself. Compiles are cached in
$ETHOSU_ORCH_TEST_NPU_MODEL_SCRATCH when set (a fixed directory makes re-runs cheap)."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from orchestrator.aot.models.catalogue import MODELS_PATH
from orchestrator.commands.verify import verify_command
from orchestrator.foundation.paths import SCRATCH_ENV, scratch
from orchestrator.foundation.tomlfile import load_toml
from orchestrator.options.compile import CompileChoices
from orchestrator.options.inspect import VerifyTask
from orchestrator.setup.options import SetupOptions
from orchestrator.setup.toolset_install import install_toolset
from orchestrator.toolsets.catalogue import find_toolset

sys.path.insert(0, str(Path(__file__).parent))   # this folder's test helpers
from torchaudio_models_by_path import install_torchaudio_models_by_path  # noqa: E402
from torchvision_without_c_ops import import_torchvision_models_without_c_ops  # noqa: E402

MLPERF_TINY = ("deep_autoencoder", "ds_cnn", "mobilenet_v1_025", "resnet8")
SWEEP_TARGETS = ("ethos-u55-128", "ethos-u85-128")
MLPERF_TINY_TARGETS = ("ethos-u65-256",)     # the four also on U65 (upstream tests no U65)
REPO = Path(__file__).resolve().parents[2]
PEERS = REPO / "examples" / "regress" / "peers.toml"
RANDOM_OPTION = "random"                     # peers.toml's option: seeded random weights
SCRATCH_VARIABLE = "ETHOSU_ORCH_TEST_NPU_MODEL_SCRATCH"   # the NPU-model tests' compile cache


def _verify(model: str, target: str, monkeypatch: pytest.MonkeyPatch,
            capsys: pytest.CaptureFixture[str], random_weights: bool = False,
            toolset: str | None = None, memory_mode: str | None = None) -> dict[str, object]:
    for module in ("torch", "executorch.backends.arm", "tosa_reference_model"):
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} not installed (pip install -e '.[aot]')")
    root = os.environ.get(SCRATCH_VARIABLE)
    where = scratch(Path(root) if root else None).ensure()
    monkeypatch.setenv(SCRATCH_ENV, str(where.root))
    if toolset is not None:   # installed from the registry once per scratch (about 15 s)
        install_toolset(find_toolset(toolset), SetupOptions(), where)
    task = VerifyTask(model=model, target=target, toolset=toolset,
                      choices=CompileChoices(random_weights=random_weights,
                                             memory_mode=memory_mode))
    code = verify_command(task, json=True)
    document: dict[str, object] = json.loads(capsys.readouterr().out)
    assert code == 0, document
    return document


def _assert_exact_and_recorded(document: dict[str, object], model: str) -> None:
    assert document["exact"] is True and document["departures"] == []
    assert document["write_findings"] == []
    source = document["model_source"]
    assert isinstance(source, dict)
    assert (source["kind"], source["name"], source["seed"], source["weights"]) == (
        "upstream", model, 0, "seeded")
    assert source["location"].startswith("mlperf_tiny.")


@pytest.mark.slow
def test_mlperf_tiny_autoencoder_by_name_is_exact_on_u85(monkeypatch, capsys):
    document = _verify("deep_autoencoder", "ethos-u85-128", monkeypatch, capsys)
    _assert_exact_and_recorded(document, "deep_autoencoder")


def _known(table: dict[str, object], target: str) -> str:
    known = table.get("known", {})
    assert isinstance(known, dict)
    return str(known.get(target.rsplit("-", 1)[0], "not tried"))


def _case(model: str, target: str, known: str, random_weights: bool) -> object:
    marks = () if known.startswith("exact") else (
        pytest.mark.xfail(reason=f"models.toml: {known}", strict=True),)
    return pytest.param(model, target, random_weights, marks=marks,
                        id=f"{Path(model).name}-{target}")


def offline_tier() -> list[tuple[str, bool]]:
    """(upstream name, random weights) of every model on the peer matrix's verify lanes; a
    name a model file stands for (models.toml [model_files] stands_for: the same network as
    upstream's test builds it) is swept through that file instead."""
    lanes = load_toml(PEERS)["lanes"]
    tier: dict[str, bool] = {}
    for lane in lanes:
        if lane.get("mode") == "verify":
            for model in lane["models"]:
                tier[model] = RANDOM_OPTION in lane.get("options", [])
    return list(tier.items())


def _cases() -> list[object]:
    data = load_toml(MODELS_PATH)
    files = data.get("model_files", {})
    stood_for = {entry["stands_for"] for entry in files.values() if "stands_for" in entry}
    cases: list[object] = []
    for model, random_weights in offline_tier():
        if model in stood_for:
            continue
        targets = SWEEP_TARGETS + (MLPERF_TINY_TARGETS if model in MLPERF_TINY else ())
        cases += [_case(model, target, _known(data["upstream"][model], target), random_weights)
                  for target in targets]
    for entry in files.values():
        cases += [_case(str(REPO / entry["file"]), target, _known(entry, target), False)
                  for target in SWEEP_TARGETS]
    return cases


def _exact_under_cases() -> list[object]:
    """Each model the pins stop on for a family (a known Vela stream fault), compiled the way
    models.toml's exact_under says for that family (a toolset, or a memory mode)."""
    data = load_toml(MODELS_PATH)
    entries = list(data["upstream"].items())
    entries += [(str(REPO / entry["file"]), entry)
                for entry in data.get("model_files", {}).values()]
    cases: list[object] = []
    for model, entry in entries:
        for family, way in entry.get("exact_under", {}).items():
            for target in (t for t in SWEEP_TARGETS if t.startswith(f"{family}-")):
                cases.append(pytest.param(model, target, way, id=f"{Path(model).name}-{target}-"
                                          f"{'-'.join(map(str, way.values()))}"))
    return cases


def _imports_for(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The test helpers an upstream model's packages need on this machine (see the module
    doc; the model files load theirs themselves)."""
    packages = set(load_toml(MODELS_PATH)["upstream"].get(model, {}).get("packages", []))
    if packages & {"torchvision", "timm"}:
        import_torchvision_models_without_c_ops()
    if "torchaudio" in packages:
        install_torchaudio_models_by_path(monkeypatch)


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target", "random_weights"), _cases())
def test_offline_tier_is_exact(model, target, random_weights, monkeypatch, capsys):
    _imports_for(model, monkeypatch)
    document = _verify(model, target, monkeypatch, capsys, random_weights)
    assert document["exact"] is True and document["departures"] == []
    assert document["write_findings"] == []
    source = document["model_source"]
    assert isinstance(source, dict)
    if source["kind"] == "upstream":
        assert (source["name"], source["seed"]) == (model, 0)
        assert source["weights"] == ("random" if random_weights else "seeded")


@pytest.mark.slow
@pytest.mark.sweep
@pytest.mark.parametrize(("model", "target", "way"), _exact_under_cases())
def test_a_known_vela_fault_is_exact_compiled_the_way_that_avoids_it(
        model, target, way, monkeypatch, capsys):
    _imports_for(model, monkeypatch)
    document = _verify(model, target, monkeypatch, capsys, **way)
    assert document["exact"] is True and document["departures"] == []
    assert document["write_findings"] == []
    versions = document["versions"]
    assert isinstance(versions, dict)
    if "toolset" in way:
        assert versions["ethos-u-vela"] == find_toolset(way["toolset"]).versions["ethos-u-vela"]
    else:
        assert document["compile_options"]["memory_mode"] == way["memory_mode"]
