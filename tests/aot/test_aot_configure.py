"""A configuration of a cached lowering (Vela on its partitions, the .pte assembled) gives the
bytes a full compile of that configuration gives; the keys split where ExecuTorch's graph
does (the family's TOSA profile)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from aot_cases import needs_executorch

from orchestrator.aot import compile_request, request_for
from orchestrator.aot import compiler as compiler_module
from orchestrator.aot.assembly import configure as configure_module
from orchestrator.aot.lower.store import load_lowering, lowered_root
from orchestrator.foundation.paths import Scratch, scratch
from orchestrator.options.compile import CompileChoices
from orchestrator.targets import load_catalogue

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
U85 = ("ethos-u85-128", "ethos-u85-256", "ethos-u85-512", "ethos-u85-1024", "ethos-u85-2048")
U55 = ("ethos-u55-32", "ethos-u55-64", "ethos-u55-128", "ethos-u55-256")
# (model, the configuration a lowering is made with, one it is configured for)
SLICE = [("convnet", "ethos-u85-128", "ethos-u85-2048"), ("add", "ethos-u55-128", "ethos-u55-32")]
SWEEP = [(model, family[0], other) for model in ("add", "convnet", "mv2")
         for family in (U85, U55) for other in family[1:]]
HEAVY = ("torch", "executorch", "tosa", "tosa_tools", "torchao")
CONFIGURE = """
import json, sys
from orchestrator.aot import compile_request, request_for
from orchestrator.foundation.paths import scratch
compile_request(request_for(sys.argv[1], sys.argv[2]), scratch().ensure())
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}} & set({heavy!r}))))
"""


def npu_targets() -> list[str]:
    return [t.name for t in load_catalogue().targets.values() if t.has_npu]


def test_lowering_key_is_the_family_profile_and_configuration_key_the_target() -> None:
    u85 = [request_for("convnet", target) for target in U85]
    assert len({r.lowering_key() for r in u85}) == 1 and len({r.key() for r in u85}) == 5
    assert u85[0].lowering_key().startswith("convnet_tosa-cf_int8_npu_")
    other_vela = request_for("convnet", "ethos-u85-256",
                             CompileChoices(memory_mode="Sram_Only",
                                            vela_flags="--optimise Size"))
    assert other_vela.lowering_key() == u85[0].lowering_key()
    u55 = request_for("convnet", "ethos-u55-64")
    assert u55.lowering_key() != u85[0].lowering_key()
    assert u55.lowering_key() == request_for("convnet", "ethos-u65-512").lowering_key()
    a16w8 = request_for("convnet", "ethos-u85-256", CompileChoices(quantize="a16w8"))
    assert a16w8.lowering_key() != u85[0].lowering_key()


def test_catalogue_tosa_profile_is_the_one_executorch_lowers_each_target_to() -> None:
    needs_executorch()
    with warnings.catch_warnings():   # importing executorch warns (deprecations)
        warnings.simplefilter("ignore")
        from executorch.backends.arm.ethosu import EthosUCompileSpec

    catalogue = load_catalogue()
    for name in npu_targets():
        npu = catalogue.target(name).npu
        assert npu is not None
        assert str(EthosUCompileSpec(name).tosa_spec) == npu.tosa_spec, name


def _configure_in_a_fresh_interpreter(lowered_in: Scratch, model: str, target: str) -> None:
    """Configure `target` of a cached lowering in a new process: it imports none of HEAVY."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "ETHOSU_ORCH_SCRATCH": str(lowered_in.root)}
    done = subprocess.run([sys.executable, "-c", CONFIGURE.format(heavy=HEAVY), model, target],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [], (model, target)


def _configured_then_full(lowered_in: Scratch, fresh: Scratch, model: str, first: str,
                          other: str, monkeypatch: pytest.MonkeyPatch) -> None:
    lowered = compile_request(request_for(model, first), lowered_in)
    request = request_for(model, other)
    lowering = load_lowering(lowered_root(lowered_in.models) / request.lowering_key())
    assert lowering is not None
    _configure_in_a_fresh_interpreter(lowered_in, model, other)
    with monkeypatch.context() as patch:   # the product is cached now: nothing is built
        patch.setattr(compiler_module, "build_product", _refuse)
        patch.setattr(configure_module, "configure_product", _refuse)
        configured = compile_request(request, lowered_in)
    full = compile_request(request, fresh)
    assert configured.manifest["lowering"]["key"] == lowered.manifest["lowering"]["key"]
    assert configured.pte.read_bytes() == full.pte.read_bytes(), (model, other)
    assert configured.vela_report is not None and full.vela_report is not None
    assert _without_vela_uids(configured.vela_report) == _without_vela_uids(full.vela_report)
    for name in ("program", "vela", "tensors", "partitions", "exact_reference", "delegation",
                 "target", "options", "identity", "pte_bytes"):
        assert configured.manifest[name] == full.manifest[name], name
    for ours, theirs in zip(configured.reference_exact, full.reference_exact, strict=True):
        assert ours.path.read_bytes() == theirs.path.read_bytes()


def _without_vela_uids(report: Path) -> str:
    """Vela's report with its names for unnamed operations ('#442': a counter global to the
    Vela process, so two full compiles in one process differ there too) made '#'."""
    return re.sub(r'"#\d+"', '"#"', report.read_text())


def _refuse(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("a configuration of a cached lowering must not lower again")


@pytest.mark.parametrize(("model", "first", "other"), SLICE + [
    pytest.param(*case, marks=pytest.mark.sweep) for case in SWEEP if case not in SLICE])
def test_configuration_of_a_lowering_equals_a_full_compile(
        aot_scratch, tmp_path, monkeypatch, model, first, other) -> None:
    needs_executorch()
    _configured_then_full(aot_scratch, scratch(tmp_path).ensure(), model, first, other,
                          monkeypatch)


def test_invoke_compile_takes_a_family_wildcard(compiled, aot_scratch) -> None:
    env = {**os.environ, "ETHOSU_ORCH_SCRATCH": str(aot_scratch.root)}
    done = subprocess.run([sys.executable, "-m", "invoke", "compile", "--model", "add",
                           "--target", "ethos-u85-*", "--json"], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    assert [result["target"] for result in results] == list(U85)
    assert results[0]["cached"] and not any(result["cached"] for result in results[1:])
    assert {result["lowering"]["key"] for result in results} == {
        compiled[("add", "ethos-u85-128")].manifest["lowering"]["key"]}
    assert all(result["lowering"]["configuration_seconds"] is not None
               for result in results[1:])
