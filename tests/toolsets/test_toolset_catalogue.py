"""Toolsets as data: the default is the pins, requirement specs resolve to named toolsets,
the worker's request and result round-trip, a toolset not installed is refused in one line,
and a runtime lane under a toolset whose sources are at another tag says so (no torch)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch
from orchestrator.foundation.pins import load_pins
from orchestrator.options.compile import CompileChoices
from orchestrator.regress.plan.cells import Cell, Mode
from orchestrator.regress.toolset_ab import runtime_lane_note
from orchestrator.toolsets.catalogue import (
    PACKAGES,
    default_toolset,
    find_toolset,
    parse_toolsets,
    pinned_digests,
    toolsets,
)
from orchestrator.toolsets.compile import compile_under, with_toolset_flags
from orchestrator.toolsets.layering import canonical, is_heavy
from orchestrator.toolsets.protocol import (
    WorkerJob,
    WorkerOutcome,
    WorkerRequest,
    WorkerResult,
)


def test_the_default_toolset_is_the_pinned_stack():
    pins = load_pins()["python"]
    assert default_toolset().versions == {package: pins[package] for package in PACKAGES}
    assert default_toolset().runtime_tag == load_pins()["sources"]["executorch"]["tag"]


def test_requirements_name_the_toolset_with_that_stack():
    assert find_toolset("executorch==1.5.1").name == "et-1.5.1"
    assert find_toolset("ethos-u-vela==5.2.0").name == "vela-5.2.0"
    assert find_toolset(None).name == default_toolset().name
    unnamed = find_toolset("ethos-u-vela==5.3.0+tosa-tools==2026.8.0")
    assert unnamed.name == "ethos-u-vela==5.3.0+tosa-tools==2026.8.0"
    assert unnamed.versions["executorch"] == default_toolset().executorch
    assert unnamed.runtime_tag == f"v{default_toolset().executorch}"


@pytest.mark.parametrize("spec", ["numpy==2.0", "executorch>=1.5", "nonsense"])
def test_an_unknown_toolset_is_refused_in_one_line(spec):
    with pytest.raises(OrchestratorError) as caught:
        find_toolset(spec)
    assert "invoke toolsets" in caught.value.message and "\n" not in caught.value.message


def test_toolsets_must_be_distinct():
    assert [t.name for t in parse_toolsets("et-1.4.1, et-1.5.1")] == ["et-1.4.1", "et-1.5.1"]
    with pytest.raises(OrchestratorError):
        parse_toolsets("et-1.5.1,executorch==1.5.1")


def test_every_pinned_digest_is_a_file_of_a_toolset_package():
    versions = {(package.replace("-", "_"), version) for toolset in toolsets().values()
                for package, version in toolset.versions.items()}
    for filename, digest in pinned_digests(("digests",)).items():
        name, version = filename.split("-")[:2]
        assert (name, version.split("+")[0]) in versions, filename
        assert len(digest) == 64 and int(digest, 16) >= 0


def test_every_pinned_dependency_is_light_and_no_toolset_package():
    packages = {canonical(package) for package in PACKAGES}
    dependencies = pinned_digests(("dependency_digests",))
    assert dependencies, "toolsets.toml pins no dependency digests"
    for filename, digest in dependencies.items():
        name = canonical(filename.split("-")[0])
        assert name not in packages and not is_heavy(name), filename
        assert len(digest) == 64 and int(digest, 16) >= 0


def test_a_toolsets_vela_flags_follow_the_users():
    toolset = replace(default_toolset(), vela_flags=("--optimise", "Size"))
    chosen = with_toolset_flags(CompileChoices(vela_flags="--verbose-weights"), toolset)
    assert chosen.vela_flags == ("--verbose-weights", "--optimise", "Size")
    assert with_toolset_flags(CompileChoices(), default_toolset()) == CompileChoices()


def test_the_worker_request_and_result_round_trip():
    request = WorkerRequest((WorkerJob("convnet", ("ethos-u55-128", "ethos-u85-128"),
                                       {"vela_flags": ["--optimise", "Size"]}),
                             WorkerJob("add", ("ethos-u85-128",))), "/s", "et-1.5.1")
    assert WorkerRequest.from_json(json.loads(json.dumps(request.to_json()))) == request
    result = WorkerResult((WorkerOutcome(0, "ethos-u55-128", product="/s/models/p"),
                           WorkerOutcome(1, "ethos-u85-128", cause="Vela refused",
                                         next_step="x")), {"executorch": "1.5.1"})
    assert WorkerResult.from_json(result.to_json()) == result


def test_a_toolset_not_installed_is_refused_with_the_setup_command(tmp_path):
    with pytest.raises(OrchestratorError) as caught:
        compile_under(find_toolset("et-1.5.1"), "convnet", ("ethos-u85-128",), CompileChoices(),
                      scratch(tmp_path))
    assert caught.value.next_step == "invoke setup --toolsets et-1.5.1"
    assert "is not installed" in caught.value.cause


def _cell(mode: Mode) -> Cell:
    return Cell(model="convnet", model_spec="convnet", target="ethos-u85-128",
                options_name="default", options=(), mode=mode, lane="qemu",
                sim="qemu" if mode is Mode.RUN else None, timeout_s=60)


def test_a_runtime_lane_runs_only_under_a_toolset_whose_sources_match_its_tag():
    newer, pinned = find_toolset("et-1.5.1"), default_toolset()
    note = runtime_lane_note(_cell(Mode.RUN), newer, "v1.4.1")
    assert note is not None and "needs ExecuTorch sources at v1.5.1, set up at v1.4.1" in note
    assert "\n" not in note
    assert runtime_lane_note(_cell(Mode.RUN), newer, None) is not None
    assert runtime_lane_note(_cell(Mode.RUN), pinned, "v1.4.1") is None
    assert runtime_lane_note(_cell(Mode.VERIFY), newer, "v1.4.1") is None
