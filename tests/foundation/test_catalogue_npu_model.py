"""The catalogue's NPU model data: which families run on QEMU through it, which
are refused and why, cores per MAC configuration, and the rules bad entries break."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from orchestrator.foundation.tomlfile import load_toml
from orchestrator.targets import CatalogueError, load_catalogue
from orchestrator.targets.catalogue import CATALOGUE_PATH, parse_catalogue


@pytest.fixture()
def raw() -> dict[str, Any]:
    return copy.deepcopy(load_toml(CATALOGUE_PATH))


def test_npu_targets_run_on_qemu_through_the_npu_model() -> None:
    catalogue = load_catalogue()
    qemu = catalogue.simulator("qemu")
    assert not qemu.capabilities.npu
    for target in catalogue:
        if target.npu is None:
            continue
        model = target.npu_model_on(qemu)
        assert model is not None and model.name == "functional", target.name
        assert model.platform == "mps3-an547" and model.library == "npu_model"
        assert target.npu_model_refusal(qemu) is None


def test_u85_targets_run_on_the_m55_not_their_own_m85() -> None:
    """QEMU has no Corstone-320: the model's platform is mps3-an547, whose CPU is not the
    Cortex-M85 of the U85's own board."""
    catalogue = load_catalogue()
    u85 = catalogue.target("ethos-u85-512")
    model = u85.npu_model_on(catalogue.simulator("qemu"))
    assert model is not None
    assert catalogue.platforms[model.platform].cpu == "cortex-m55"
    assert catalogue.platforms[u85.npu.platform].cpu == "cortex-m85"
    assert u85.npu_cores == 1   # one NPU named by its total MACs


def test_no_model_runs_on_an_fvp_or_for_cpu_targets() -> None:
    catalogue = load_catalogue()
    fvp = catalogue.simulator("fvp-corstone-300-u55")
    assert catalogue.target("ethos-u55-128").npu_model_on(fvp) is None
    assert catalogue.target("cortex-m55").npu_model_on(catalogue.simulator("qemu")) is None


def test_cores_per_mac_configuration() -> None:
    catalogue = load_catalogue()
    assert catalogue.target("ethos-u65-512").npu_cores == 2
    assert catalogue.target("ethos-u65-256").npu_cores == 1
    assert catalogue.target("ethos-u55-128").npu_cores == 1
    assert catalogue.target("cortex-m55").npu_cores is None


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda d: d["npu_models"]["functional"].update(platform="corstone-300"),
     "simulator qemu cannot run platform corstone-300"),
    (lambda d: d["npu_models"]["functional"].update(simulators=["fvp-corstone-300-u55"],
                                                    platform="corstone-300"),
     "has an NPU; a model is only for simulators without one"),
    (lambda d: d["npu_models"]["functional"].update(families=["ethos-u99"]),
     "unknown NPU family 'ethos-u99'"),
    (lambda d: d["npu_models"]["functional"].update(refused={"ethos-u55": "no"}),
     "both supported and refused"),
    (lambda d: d["npu_models"]["functional"].update(
        families=["ethos-u55", "ethos-u65"], refused={"ethos-u85": ""}),
     "every refusal needs a reason"),
    (lambda d: d["npu_models"]["functional"].pop("library"), "missing key 'library'"),
    (lambda d: d["npu_families"]["ethos-u65"].update(cores={"1024": 2}),
     "cores names MAC configuration '1024'"),
    (lambda d: d["npu_families"]["ethos-u65"].update(cores={"512": 0}),
     "cores for 512 must be a positive integer"),
])
def test_bad_npu_model_entry_is_named(raw: dict[str, Any], mutate: Any, expected: str) -> None:
    mutate(raw)
    with pytest.raises(CatalogueError, match=expected):
        parse_catalogue(raw)


def test_targets_listing_shows_the_model_lanes() -> None:
    from orchestrator.targets.listing import model_lanes, target_summary

    catalogue = load_catalogue()
    u55 = target_summary(catalogue.target("ethos-u55-128"))
    assert model_lanes(u55) == ["qemu (NPU model)"]
    u85 = target_summary(catalogue.target("ethos-u85-128"))
    assert model_lanes(u85) == ["qemu (NPU model)"]
    assert target_summary(catalogue.target("cortex-m55"))["npu_models"] == {}
