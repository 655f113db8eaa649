"""Matrix files: validation errors name the entry; expansion is stable and complete."""

from __future__ import annotations

import pytest

from orchestrator.regress.plan.cells import Expect, Mode, split_key
from orchestrator.regress.plan.matrix import MatrixError, expand, load_matrix
from orchestrator.targets import load_catalogue


def write(tmp_path, text):
    path = tmp_path / "m.toml"
    path.write_text(text)
    return path


def test_unit_matrix_expands_to_sorted_cells(unit_matrix):
    cells = expand(load_matrix(unit_matrix), load_catalogue())
    keys = [cell.key for cell in cells]
    assert keys == sorted(keys)
    assert keys == ["add@cortex-m55/default", "add@ethos-u55-128/default",
                    "add@ethos-u85-128/default", "conv@cortex-m55/default",
                    "mv2@ethos-u55-128/default", "mv2@ethos-u85-128/default",
                    "mv2@ethos-u85-128/fast"]
    by_key = {cell.key: cell for cell in cells}
    assert by_key["add@cortex-m55/default"].expect is Expect.XFAIL
    assert by_key["mv2@ethos-u55-128/default"].expect is Expect.SKIP
    assert by_key["mv2@ethos-u85-128/fast"].mode is Mode.COMPILE
    assert by_key["mv2@ethos-u85-128/fast"].sim is None
    assert by_key["mv2@ethos-u85-128/fast"].option_dict == {"fast": True}
    assert by_key["add@ethos-u85-128/default"].sim == "fvp-corstone-320"
    assert by_key["conv@cortex-m55/default"].sim == "qemu"
    assert split_key("mv2@ethos-u85-128/fast") == ("mv2", "ethos-u85-128", "fast")


def test_model_specs_get_short_names(tmp_path):
    path = write(tmp_path, """
[[lanes]]
mode = "compile"
models = ["add", "nets/tiny_net.py", "my.pkg.zoo:make_net", {name = "alias", spec = "softmax"}]
targets = ["cortex-m55"]
""")
    cells = expand(load_matrix(path), load_catalogue())
    assert {(c.model, c.model_spec) for c in cells} == {
        ("add", "add"), ("tiny_net", str(tmp_path / "nets" / "tiny_net.py")),
        ("make_net", "my.pkg.zoo:make_net"), ("alias", "softmax")}


@pytest.mark.parametrize("text, words", [
    ("[[lanes]]\nmodels=['add']\ntargets=['cortex-m55']\ncolour='red'\n", "unknown keys"),
    ("[[lanes]]\nmodels=['add']\ntargets=['cortex-m55']\noptions=['int16']\n", "int16"),
    ("[[lanes]]\nmodels=[]\ntargets=['cortex-m55']\n", "has no models"),
    ("[[lanes]]\nmodels=['add']\ntargets=['cortex-m55']\nsim='renode'\n", "renode"),
    ("[[lanes]]\nmodels=['add']\ntargets=['cortex-m55']\n[[expect]]\nstatus='xfail'\n",
     "needs a reason"),
    ("schema = 7\n[[lanes]]\nmodels=['add']\ntargets=['cortex-m55']\n", "schema 7"),
    ("name = 'x'\n", "no [[lanes]]"),
])
def test_bad_matrices_name_the_problem(tmp_path, text, words):
    with pytest.raises(MatrixError) as caught:
        load_matrix(write(tmp_path, text))
    assert words in caught.value.message and "next: fix" in caught.value.message


def _npu_targets_by_model_support() -> tuple[list[str], list[str]]:
    """(NPU targets an NPU model runs on QEMU, those it does not), one per family,
    as the catalogue's [npu_models] says (other branches add families there)."""
    catalogue = load_catalogue()
    qemu = catalogue.simulator("qemu")
    first = {}
    for _name, target in sorted(catalogue.targets.items()):
        if target.npu is not None:
            first.setdefault(target.npu.name, target)
    runs = [t.name for t in first.values() if t.npu_model_on(qemu) is not None]
    return runs, [t.name for t in first.values() if t.npu_model_on(qemu) is None]


def test_npu_target_on_qemu_runs_on_the_npu_model(tmp_path):
    runs, _ = _npu_targets_by_model_support()
    assert runs, "the catalogue names no NPU model family"
    targets = ",".join(repr(name) for name in runs)
    path = write(tmp_path, f"[[lanes]]\nmodels=['add']\ntargets=[{targets}]\nsim='qemu'\n")
    cells = expand(load_matrix(path), load_catalogue())
    assert {(c.target, c.sim, c.sim_kind) for c in cells} == {(t, "qemu", "qemu") for t in runs}


def test_npu_target_no_model_runs_on_qemu_is_refused_not_faked(tmp_path):
    _, refused = _npu_targets_by_model_support()
    if not refused:
        pytest.skip("the NPU model runs every Ethos-U family in the catalogue")
    path = write(tmp_path, f"[[lanes]]\nmodels=['add']\ntargets=['{refused[0]}']\nsim='qemu'\n")
    with pytest.raises(MatrixError, match="qemu has no Ethos-U NPU"):
        expand(load_matrix(path), load_catalogue())


def test_auto_sim_picks_fvp_for_npu_and_qemu_for_m55(tmp_path):
    path = write(tmp_path, "[[lanes]]\nmodels=['add']\ntargets=['ethos-u55-128','cortex-m55']\n")
    sims = {c.target: (c.sim, c.sim_kind) for c in expand(load_matrix(path), load_catalogue())}
    assert sims == {"ethos-u55-128": ("fvp-corstone-300-u55", "fvp"),
                    "cortex-m55": ("qemu", "qemu")}


def test_duplicate_cells_across_lanes_are_refused(tmp_path):
    path = write(tmp_path, """
[[lanes]]
name = "a"
models = ["add"]
targets = ["cortex-m55"]
[[lanes]]
name = "b"
mode = "compile"
models = ["add"]
targets = ["cortex-m55"]
""")
    with pytest.raises(MatrixError, match="appears in lanes a and b"):
        expand(load_matrix(path), load_catalogue())


def test_unknown_target_and_missing_file(tmp_path):
    path = write(tmp_path, "[[lanes]]\nmodels=['add']\ntargets=['ethos-u55-100']\n")
    with pytest.raises(Exception, match="ethos-u55-128|ethos-u55"):
        expand(load_matrix(path), load_catalogue())
    with pytest.raises(MatrixError, match="does not exist"):
        load_matrix(tmp_path / "nope.toml")


@pytest.mark.parametrize("name, cells, simulated", [("qemu.toml", 9, 4), ("fvp.toml", 23, 23)])
def test_example_matrices_expand(name, cells, simulated):
    from orchestrator.foundation.paths import repo_root

    expanded = expand(load_matrix(repo_root() / "examples" / "regress" / name), load_catalogue())
    assert len(expanded) == cells
    assert sum(cell.simulates for cell in expanded) == simulated
    assert all(cell.sim_kind != "qemu" for cell in expanded if cell.simulates and
               load_catalogue().target(cell.target).has_npu)


def test_example_npu_model_matrix_runs_npu_targets_on_qemu():
    from orchestrator.foundation.paths import repo_root

    path = repo_root() / "examples" / "regress" / "qemu-npu.toml"
    expanded = expand(load_matrix(path), load_catalogue())
    assert {c.key for c in expanded} == {
        "npuselftest@ethos-u55-128/default", "add@ethos-u55-128/default",
        "convnet@ethos-u55-128/default", "add@ethos-u65-256/default",
        "convnet@ethos-u65-256/default", "add@ethos-u85-128/default",
        "convnet@ethos-u85-128/default"}
    assert all(c.simulates and c.sim == "qemu" for c in expanded)
