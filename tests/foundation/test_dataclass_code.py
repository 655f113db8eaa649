"""The compiled code of the tool's record types kept between processes
(orchestrator/foundation/dataclass_code.py, issue 44): a class made from the cache is the class
a fresh compile makes (same code, same behaviour, frozen still frozen), only the tool's own
classes are cached, a damaged file is ignored and replaced, and nothing is written under -B or
with the user cache off. Real interpreters for the between-process cases."""

from __future__ import annotations

import dataclasses
import json
import marshal
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from orchestrator.foundation import dataclass_code
from orchestrator.foundation.paths import USER_CACHE_ENV, repo_root

PROBE = "orchestrator.probe_records"
RECORDS = '''
from dataclasses import InitVar, dataclass, field
from typing import ClassVar

@dataclass(frozen=True)
class Point:
    """A frozen record with defaults, a factory, a hidden and an uncompared field."""
    x: int
    y: int = 2
    tags: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list, compare=False)
    secret: str = field(default="s", repr=False)
    kind: ClassVar[str] = "point"

@dataclass(frozen=True)
class Point3(Point):
    z: int = 0

@dataclass(order=True)
class Mutable:
    a: int
    b: str = field(default="", kw_only=True)
    seed: InitVar[int] = 0
    doubled: int = field(init=False, default=0)

    def __post_init__(self, seed):
        self.doubled = 2 * self.a + seed
'''


def _fresh_module(source: str = RECORDS) -> types.ModuleType:
    """The probe module, made again (as a new process would make it)."""
    module = types.ModuleType(PROBE)
    sys.modules[PROBE] = module
    try:
        exec(compile(source, f"<{PROBE}>", "exec"), module.__dict__)
    finally:
        del sys.modules[PROBE]
    return module


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """The hook installed (as every command has it) over an empty user cache."""
    monkeypatch.setenv(USER_CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(dataclass_code, "_modules", {})
    monkeypatch.setattr(dataclass_code, "_made", {})
    monkeypatch.setattr(dataclass_code, "_state", {"compiled": 0, "installed": False})
    monkeypatch.delattr(dataclasses, "exec", raising=False)
    dataclass_code.install()
    yield tmp_path
    dataclasses.__dict__.pop("exec", None)


def _like_a_new_process() -> None:
    dataclass_code._modules.clear()
    dataclass_code._made.clear()
    dataclass_code._state["compiled"] = 0


def _same_code(one: types.CodeType, other: types.CodeType) -> None:
    for name in ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars",
                 "co_flags", "co_argcount", "co_posonlyargcount", "co_kwonlyargcount",
                 "co_name", "co_qualname"):      # co_qualname: 3.11 on
        assert getattr(one, name, None) == getattr(other, name, None), name
    assert len(one.co_consts) == len(other.co_consts)
    for mine, theirs in zip(one.co_consts, other.co_consts, strict=True):
        if isinstance(mine, types.CodeType):
            _same_code(mine, theirs)
        else:
            assert mine == theirs


def test_a_class_made_from_the_cache_is_the_class_a_fresh_compile_makes(cache):
    fresh = _fresh_module()
    compiled = dataclass_code.compiled_this_process()
    assert compiled >= 12            # 3 classes: init, repr, eq, (hash, setattr, delattr)
    dataclass_code.keep(allowed=True)
    assert (dataclass_code.cache_folder() / f"{PROBE}.marshal").is_file()
    _like_a_new_process()
    kept = _fresh_module()
    assert dataclass_code.compiled_this_process() == 0
    for name in ("Point", "Point3", "Mutable"):
        for method in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__",
                       "__delattr__", "__lt__"):
            mine = getattr(getattr(fresh, name), method)
            theirs = getattr(getattr(kept, name), method)
            if hasattr(mine, "__code__"):
                _same_code(mine.__code__, theirs.__code__)
                assert mine.__annotations__ == theirs.__annotations__
    for module in (fresh, kept):
        point = module.Point(1, tags=("a",))
        assert repr(point) == "Point(x=1, y=2, tags=('a',), notes=[])"
        assert point == module.Point(1, tags=("a",), notes=["ignored"])
        assert hash(point) == hash(module.Point(1, tags=("a",)))
        assert point.notes is not module.Point(1).notes
        with pytest.raises(dataclasses.FrozenInstanceError):
            point.x = 3          # type: ignore[misc]
        assert module.Point3(1, z=4).z == 4 and module.Point3(1) != module.Point(1)
        mutable = module.Mutable(3, b="b", seed=1)
        assert mutable.doubled == 7 and mutable < module.Mutable(4)
        with pytest.raises(TypeError):
            module.Mutable(1, "b")    # b is keyword-only
        assert [f.name for f in dataclasses.fields(module.Point)] == [
            "x", "y", "tags", "notes", "secret"]


def test_only_the_tools_own_classes_are_cached(cache):
    @dataclasses.dataclass(frozen=True)
    class Elsewhere:
        value: int

    assert Elsewhere(1) == Elsewhere(1)
    assert dataclass_code.compiled_this_process() == 0 and dataclass_code._made == {}


def test_a_damaged_file_is_ignored_and_replaced(cache):
    folder = dataclass_code.cache_folder()
    folder.mkdir(parents=True)
    (folder / f"{PROBE}.marshal").write_bytes(b"not marshal data")
    module = _fresh_module()
    assert module.Point(1) == module.Point(1)
    assert dataclass_code.compiled_this_process() > 0
    dataclass_code.keep(allowed=True)
    _like_a_new_process()
    _fresh_module()
    assert dataclass_code.compiled_this_process() == 0


def test_an_edited_class_leaves_no_stale_text(cache):
    _fresh_module()
    dataclass_code.keep(allowed=True)
    path = dataclass_code.cache_folder() / f"{PROBE}.marshal"
    before = path.read_bytes()
    _like_a_new_process()
    edited = RECORDS.replace("    z: int = 0", "    z: int = 0\n    w: int = 1")
    _fresh_module(edited)
    assert dataclass_code.compiled_this_process() > 0
    made = set(dataclass_code._made[PROBE])
    dataclass_code.keep(allowed=True)
    assert path.read_bytes() != before
    assert set(marshal.loads(path.read_bytes())) == made     # the edited texts, and only them
    _like_a_new_process()
    _fresh_module(edited)
    assert dataclass_code.compiled_this_process() == 0


def _command_process(cache_dir: str, *extra_env: tuple[str, str]) -> dict[str, int]:
    """A fresh interpreter importing what a warm `invoke run` imports: what it compiled."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env.update({"PYTHONPATH": str(repo_root()), USER_CACHE_ENV: cache_dir, **dict(extra_env)})
    code = ("import json, orchestrator.commands.run, orchestrator.commands.direct\n"
            "import orchestrator.api.run_job, orchestrator.apps.model\n"
            "from orchestrator.foundation import dataclass_code as d\n"
            "print(json.dumps({'compiled': d.compiled_this_process(), "
            "'modules': len(d._made)}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, check=True)
    found: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def test_the_second_process_compiles_none_of_the_warm_paths_records(tmp_path):
    first = _command_process(str(tmp_path))
    assert first["compiled"] > 100 and first["modules"] > 20
    assert _command_process(str(tmp_path)) == {"compiled": 0, "modules": first["modules"]}


@pytest.mark.parametrize("env", [("PYTHONDONTWRITEBYTECODE", "1"), (USER_CACHE_ENV, "0")])
def test_nothing_is_written_under_no_bytecode_or_with_the_user_cache_off(tmp_path, env):
    first = _command_process(str(tmp_path), env)
    assert first["compiled"] > 100
    assert not list(Path(tmp_path).rglob("*.marshal"))
