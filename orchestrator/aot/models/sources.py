"""Name the model and its tensors by content, without importing torch (cache keys need it)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets.catalogue import unknown_name_error

if TYPE_CHECKING:
    from orchestrator.aot.models.catalogue import ModelCatalogue, ModelEntry

ZOO_DIR = Path(__file__).resolve().parent / "zoo"
BUILTINS = ("add", "softmax", "convnet", "mv2")
MODEL_FILE_SUFFIXES = (".py", ".pt", ".pth")
TENSOR_SUFFIXES = (".pt", ".pth", ".npy", ".npz")

SERIALIZED = "serialized"   # a model saved whole with torch.save (no example inputs)


@dataclass(frozen=True)
class ModelRef:
    """Where a model comes from and a digest of what defines it."""

    kind: str          # "builtin", "upstream", "file" (.py), "serialized" (.pt/.pth), "function"
    name: str          # short name used in product names
    location: str      # builtin name, absolute file path, "module:function", or upstream's
                       # "module:Class" under executorch.examples.models
    digest: str        # sha256 of the defining source or file bytes
    seed: int | None = None        # upstream: torch's RNG seed around the load
    weights: str | None = None     # upstream: "pretrained", "random" (asked) or "seeded" (none)
    packages: tuple[str, ...] = ()   # upstream: "name==version" of the packages it imports

    def provenance(self) -> dict[str, Any]:
        """The seed and weights of an upstream model ({} for the others): recorded in the
        product key, the manifest and the result."""
        if self.kind != "upstream":
            return {}
        return {"seed": self.seed, "weights": self.weights, "packages": list(self.packages)}


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _builtin_ref(name: str) -> ModelRef:
    source = ZOO_DIR / f"{name}.py"
    common = ZOO_DIR / "common.py"
    digest = sha256_bytes(source.read_bytes() + common.read_bytes())
    return ModelRef(kind="builtin", name=name, location=name, digest=digest)


def _file_ref(spec: str) -> ModelRef:
    path = Path(spec).expanduser().resolve()
    if not path.is_file():
        raise OrchestratorError(f"model file {spec} does not exist",
                                "check the path, or run invoke compile --model add")
    kind = "file" if path.suffix == ".py" else SERIALIZED
    return ModelRef(kind=kind, name=path.stem, location=str(path), digest=sha256_file(path))


def ensure_cwd_importable() -> None:
    """`module:function` names modules relative to where the user runs the command."""
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.append(cwd)


def _function_ref(spec: str) -> ModelRef:
    module_name, _, function = spec.partition(":")
    ensure_cwd_importable()
    try:
        found = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        found = None
    if found is None or not found.origin or not Path(found.origin).is_file():
        raise OrchestratorError(f"cannot find Python module '{module_name}' for model {spec}",
                                "put it on PYTHONPATH or pass the .py file instead")
    digest = sha256_bytes(Path(found.origin).read_bytes() + function.encode())
    return ModelRef(kind="function", name=f"{module_name}.{function}", location=spec,
                    digest=digest)


def installed_version(package: str) -> str:
    """The installed version of distribution `package` ("missing" when it is not).
    importlib.metadata is imported here: it pulls in email, zipfile and csv."""
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "missing"


def _upstream_ref(entry: ModelEntry, catalogue: ModelCatalogue, random_weights: bool
                  ) -> ModelRef:
    from orchestrator.aot.models.catalogue import upstream_module_files

    files = upstream_module_files(entry.module)
    digest = sha256_bytes(b"".join(path.read_bytes() for path in files)
                          + f"{entry.module}:{entry.class_name}".encode())
    pretrained = bool(entry.weights or entry.random_weights_package)
    weights = ("random" if random_weights else "pretrained") if pretrained else "seeded"
    return ModelRef(kind="upstream", name=catalogue.selector(entry),
                    location=f"{entry.module}:{entry.class_name}", digest=digest,
                    seed=catalogue.seed, weights=weights,
                    packages=tuple(f"{name}=={installed_version(name)}"
                                   for name in entry.packages or ()))


def resolve_model(spec: str, random_weights: bool = False) -> ModelRef:
    """A built-in or upstream name, a .py/.pt file, or 'module:function' -> ModelRef (no
    torch import). A name that is both a built-in and upstream's is the built-in
    (models.toml [rule]); `upstream:NAME` names upstream's."""
    if spec in BUILTINS:
        return _builtin_ref(spec)
    if spec.endswith(MODEL_FILE_SUFFIXES) or "/" in spec:
        return _file_ref(spec)
    # the model catalogue (models.toml's entries) is read only for a name that is not a
    # built-in or a file: a warm run of a built-in never loads it
    from orchestrator.aot.models.catalogue import UPSTREAM_PREFIX, load_model_catalogue

    catalogue = load_model_catalogue()
    entry = catalogue.find(spec)
    if entry is not None and entry.source == "upstream":
        return _upstream_ref(entry, catalogue, random_weights)
    if spec.startswith(UPSTREAM_PREFIX):
        raise unknown_name_error("upstream model", spec[len(UPSTREAM_PREFIX):],
                                 list(catalogue.upstream), "invoke models")
    if ":" in spec:
        return _function_ref(spec)
    raise unknown_name_error("model", spec, catalogue.names(), "invoke models")


def tensor_files(spec: str | None, what: str) -> tuple[Path, ...]:
    """A .pt/.npy file or a directory of them -> sorted paths (empty tuple for None)."""
    if not spec:
        return ()
    path = Path(spec).expanduser().resolve()
    if path.is_dir():
        files = tuple(sorted(p for p in path.rglob("*") if p.suffix in TENSOR_SUFFIXES))
        if not files:
            raise OrchestratorError(f"{what} directory {spec} holds no .pt, .npy or .npz files",
                                    f"save {what} with torch.save or numpy.save/savez")
        return files
    if not path.is_file():
        raise OrchestratorError(f"{what} file {spec} does not exist", "check the path")
    if path.suffix not in TENSOR_SUFFIXES:
        raise OrchestratorError(f"{what} file {spec} is not .pt, .pth, .npy or .npz",
                                f"save {what} with torch.save or numpy.save")
    return (path,)


def files_digest(paths: tuple[Path, ...]) -> str:
    """One digest over several files (names and bytes)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + sha256_file(path).encode())
    return digest.hexdigest()
