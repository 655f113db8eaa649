"""The code `@dataclass` generates for the tool's record types, kept compiled between processes.

`@dataclass` writes each class's methods (__init__, __repr__, __eq__, a frozen class's
__setattr__ and __delattr__, its __hash__) as Python source text and compiles that text when
the class is made: about 1 ms per class here, 90% of it the compile. A warm `invoke run`
makes about 105 of the tool's record types, about 120 ms of its 0.5 s budget (issue 44), in
every process. Python keeps a module's compiled code in __pycache__; this does the same for
that generated text: code compiled from exactly that text, marshalled to a file per defining
module in the user cache and looked up by the text itself, so what is found is what a fresh
compile would give.

How: `dataclasses` compiles its text with `exec`, looked up as a global of its module (CPython
3.10 to 3.13). `install()` gives that module an `exec` of its own which compiles through the
cache the text of classes defined in the tool's modules (the globals the text runs in are an
`orchestrator` module's); every other call is the builtin `exec`, unchanged. Should
`dataclasses` stop calling `exec` that way, nothing is cached and nothing else changes.

The files sit in a folder keyed by the interpreter (its bytecode magic number and optimization
level); a module's file is read when its first class is made and written at exit when one of
its classes was compiled that the file did not hold (then with exactly the texts this process
made for it: a module makes all its classes when imported, so an edited class leaves no stale
text behind). Nothing is written when bytecode writing is off (-B, PYTHONDONTWRITEBYTECODE) or
the user cache is (ETHOSU_ORCH_CACHE_DIR=0). An unreadable file is ignored and replaced."""

from __future__ import annotations

import atexit
import builtins
import dataclasses
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any

from orchestrator.foundation.cache_root import user_cache

PACKAGE = "orchestrator"
_HOOK = "exec"

_modules: dict[str, dict[str, CodeType]] = {}     # module -> its file's texts (read once)
_made: dict[str, dict[str, CodeType]] = {}        # module -> the texts this process made
_state = {"compiled": 0, "installed": False}


def cache_folder() -> Path | None:
    """The folder for this interpreter, or None when there is no user cache."""
    root = user_cache()
    if root is None:
        return None
    tag = f"{sys.implementation.cache_tag}-{MAGIC_NUMBER.hex()}-O{sys.flags.optimize}"
    return root / "derived" / f"dataclass-code-{tag}"


def install() -> None:
    """Route dataclasses' compiles of the tool's classes through the cache (once per process)."""
    if _state["installed"] or _HOOK in vars(dataclasses):
        return
    setattr(dataclasses, _HOOK, _exec)
    atexit.register(keep)
    _state["installed"] = True


def compiled_this_process() -> int:
    """How many texts this process compiled (0 when the cache held every class it made)."""
    return _state["compiled"]


def _exec(source: Any, globals: dict[str, Any] | None = None,   # noqa: A002 - exec's own
          locals: dict[str, Any] | None = None, /) -> None:     # noqa: A002 - names
    """exec as dataclasses calls it; the tool's generated text compiled through the cache."""
    if globals is None:
        caller = sys._getframe(1)
        globals, locals = caller.f_globals, caller.f_locals if locals is None else locals
    module = str(globals.get("__name__", ""))
    if isinstance(source, str) and module.partition(".")[0] == PACKAGE:
        source = _code(module, source)
    builtins.exec(source, globals, locals)


def _code(module: str, text: str) -> CodeType:
    """The compiled text: kept, else compiled now as exec would (no inherited __future__)."""
    if module not in _modules:
        _modules[module] = _read(_file(module))
    code = _modules[module].get(text)
    if code is None:
        code = compile(text, "<string>", "exec", dont_inherit=True)
        _state["compiled"] += 1
    _made.setdefault(module, {})[text] = code
    return code


def _file(module: str) -> Path | None:
    folder = cache_folder()
    return None if folder is None else folder / f"{module}.marshal"


def _read(path: Path | None) -> dict[str, CodeType]:
    if path is None:
        return {}
    try:
        kept = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    if not isinstance(kept, dict):
        return {}
    return {text: code for text, code in kept.items()
            if isinstance(text, str) and isinstance(code, CodeType)}


def keep(allowed: bool | None = None) -> None:
    """(At exit) write each module's file that lacked a text this process compiled for it;
    `allowed` defaults to whether this interpreter writes bytecode."""
    if allowed is None:
        allowed = not sys.flags.dont_write_bytecode
    if not _state["compiled"] or not allowed:
        return
    for module, made in _made.items():
        path = _file(module)
        if path is not None and not made.keys() <= _modules.get(module, {}).keys():
            _write(path, made)


def _write(path: Path, codes: dict[str, CodeType]) -> None:
    staged = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        staged.write_bytes(marshal.dumps(codes))
        os.replace(staged, path)
    except OSError:
        staged.unlink(missing_ok=True)   # a cache that cannot be written only costs time
