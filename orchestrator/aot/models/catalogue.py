"""Every model `--model NAME` accepts by name: the built-ins and upstream's examples/models
(MODEL_NAME_TO_MODEL of the installed ExecuTorch), with their facts from data/models.toml.
Never imports torch: the listing and the cache keys need it cheap."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from orchestrator.foundation.cache_check import sha256_of
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, DATA_DIR, EACH, Layout, load_data

MODELS_PATH = DATA_DIR / "models.toml"
# Every key models.toml may hold (a misspelt one is refused, not read as its default).
MODELS_LAYOUT: dict[str, Layout] = {
    "rule": {"both": ANY, "seed": ANY},
    "extras": ANY,
    "builtin": {EACH: {"summary": ANY, "known": ANY, "exact_under": ANY}},
    "upstream": {EACH: {"summary": ANY, "packages": ANY, "weights": ANY, "fetches": ANY,
                        "known": ANY, "random_weights_package": ANY, "exact_under": ANY}},
    "model_files": {EACH: {"file": ANY, "stands_for": ANY, "upstream_test": ANY,
                           "summary": ANY, "known": ANY, "exact_under": ANY}},
    "weights": {EACH: {"url": ANY, "sha256": ANY, "sha256_prefix": ANY, "store": ANY}},
}
UPSTREAM_PREFIX = "upstream:"
UPSTREAM_PACKAGE = "executorch.examples.models"
EXTRA_INSTALL = "pip install -e '.[{extra}]'"
NPU_FAMILIES = ("ethos-u55", "ethos-u65", "ethos-u85")
NOT_RECORDED = "not recorded"


@dataclass(frozen=True)
class WeightFile:
    """One pretrained weight file a model's loader fetches, pinned as data."""

    name: str
    url: str
    sha256: str            # the full digest ("" when not verified here)
    sha256_prefix: str     # the prefix upstream embeds in the file name ("" when none)
    store: str             # where the loader looks: "torch-hub"

    @property
    def filename(self) -> str:
        """The name it has in the download cache and on a mirror: the URL's last part, or
        for a Hugging Face hub file (all called model.safetensors) the weight's name and
        that file's suffix."""
        last = self.url.rstrip("/").rsplit("/", 1)[-1]
        return f"{self.name}{Path(last).suffix}" if self.store == "hf-hub" else last

    @property
    def hub_file(self) -> tuple[str, str, str]:
        """A Hugging Face hub URL's (org/repo, revision, file):
        https://huggingface.co/ORG/REPO/resolve/REV/FILE."""
        parts = self.url.split("://", 1)[-1].split("/")
        return f"{parts[1]}/{parts[2]}", parts[4], "/".join(parts[5:])

    @property
    def pinned(self) -> bool:
        """True when the full sha256 is known (else the install needs --allow-unpinned)."""
        return bool(self.sha256)


@dataclass(frozen=True)
class ModelEntry:
    """One named model and what is known about it."""

    name: str
    source: str                          # "builtin" or "upstream"
    module: str = ""                     # upstream: module under examples/models
    class_name: str = ""                 # upstream: its EagerModelBase class
    summary: str = ""
    packages: tuple[str, ...] | None = None   # None: not recorded
    weights: tuple[WeightFile, ...] = ()
    fetches: str = ""                    # a download outside this tool (refused)
    random_weights_package: str = ""     # fetches, but --random-weights stops it in this
                                         # package's pretrained loader (timm)
    known: dict[str, str] = field(default_factory=dict)

    def known_on(self, family: str) -> str:
        return self.known.get(family, "not tried" if self.known else NOT_RECORDED)

    def to_json(self, extras: dict[str, str]) -> dict[str, Any]:
        """What `invoke models --json` prints for this model."""
        return {
            "name": self.name, "source": self.source,
            "loads": f"{UPSTREAM_PACKAGE}.{self.module}:{self.class_name}"
            if self.source == "upstream" else f"orchestrator.aot.models.zoo.{self.name}",
            "summary": self.summary,
            "packages": None if self.packages is None else [
                {"name": package, "extra": extras.get(package)} for package in self.packages],
            "downloads_weights": bool(self.weights or self.fetches),
            "weights": [{"name": w.name, "url": w.url, "sha256": w.sha256 or None,
                         "sha256_prefix": w.sha256_prefix or None, "pinned": w.pinned}
                        for w in self.weights],
            "fetches_outside_tool": self.fetches or None,
            "random_weights": bool(self.weights or self.random_weights_package),
            "known": {family: self.known_on(family) for family in NPU_FAMILIES},
        }


@dataclass(frozen=True)
class ModelCatalogue:
    """The built-ins, upstream's names and the data about both."""

    builtins: dict[str, ModelEntry]
    upstream: dict[str, ModelEntry]
    weights: dict[str, WeightFile]
    extras: dict[str, str]
    rule: str
    seed: int
    upstream_problem: str | None = None   # why upstream's names could not be read

    def entries(self) -> list[ModelEntry]:
        """Every model: built-ins first, then upstream's in upstream's order."""
        return [*self.builtins.values(), *self.upstream.values()]

    def find(self, spec: str) -> ModelEntry | None:
        """The model `spec` names (a built-in wins; `upstream:NAME` forces upstream's)."""
        if spec.startswith(UPSTREAM_PREFIX):
            return self.upstream.get(spec[len(UPSTREAM_PREFIX):])
        return self.builtins.get(spec) or self.upstream.get(spec)

    def selector(self, entry: ModelEntry) -> str:
        """What names `entry` on the command line: its name, or upstream:NAME where a
        built-in has the same name."""
        shadowed = entry.source == "upstream" and entry.name in self.builtins
        return UPSTREAM_PREFIX + entry.name if shadowed else entry.name

    def names(self) -> list[str]:
        return list(dict.fromkeys([*self.builtins, *self.upstream]))

    def install_hint(self, package: str) -> str:
        extra = self.extras.get(package)
        return EXTRA_INSTALL.format(extra=extra) if extra else f"pip install {package}"


def upstream_table() -> tuple[dict[str, tuple[str, str]], str | None]:
    """MODEL_NAME_TO_MODEL of the installed ExecuTorch ({} and why, when it cannot be read)."""
    try:
        from executorch.examples.models import MODEL_NAME_TO_MODEL
    except ImportError as error:
        return {}, (f"upstream's examples/models could not be read ({error}); install "
                    "the aot extra: pip install -e '.[aot]'")
    return {name: (str(module), str(cls)) for name, (module, cls)
            in MODEL_NAME_TO_MODEL.items()}, None


def _weight(name: str, data: dict[str, Any]) -> WeightFile:
    return WeightFile(name=name, url=str(data["url"]), sha256=str(data.get("sha256", "")),
                      sha256_prefix=str(data.get("sha256_prefix", "")),
                      store=str(data.get("store", "torch-hub")))


def _upstream_entry(name: str, module: str, cls: str, data: dict[str, Any] | None,
                    weights: dict[str, WeightFile]) -> ModelEntry:
    if data is None:
        return ModelEntry(name, "upstream", module, cls)
    packages = data.get("packages")
    return ModelEntry(
        name, "upstream", module, cls, summary=str(data.get("summary", "")),
        packages=None if packages is None else tuple(packages),
        weights=tuple(weights[w] for w in data.get("weights", [])),
        fetches=str(data.get("fetches", "")), known=dict(data.get("known", {})),
        random_weights_package=str(data.get("random_weights_package", "")))


def parse_model_catalogue(data: dict[str, Any], table: dict[str, tuple[str, str]],
                          problem: str | None = None) -> ModelCatalogue:
    """The catalogue from models.toml's data and upstream's name table."""
    weights = {name: _weight(name, item) for name, item in data.get("weights", {}).items()}
    builtins = {name: ModelEntry(name, "builtin", summary=str(item.get("summary", "")),
                                 packages=(), known=dict(item.get("known", {})))
                for name, item in data.get("builtin", {}).items()}
    recorded = data.get("upstream", {})
    upstream = {name: _upstream_entry(name, module, cls, recorded.get(name), weights)
                for name, (module, cls) in table.items()}
    rule = data.get("rule", {})
    return ModelCatalogue(builtins, upstream, weights, dict(data.get("extras", {})),
                          str(rule.get("both", "")), int(rule.get("seed", 0)), problem)


@lru_cache(maxsize=4)
def load_model_catalogue(path: Path = MODELS_PATH) -> ModelCatalogue:
    """The catalogue of models.toml and the installed ExecuTorch's MODEL_NAME_TO_MODEL."""
    table, problem = upstream_table()
    return parse_model_catalogue(load_data(path, MODELS_LAYOUT), table, problem)


def upstream_module_files(module: str) -> list[Path]:
    """The source files that define upstream module `module` (a package: all its .py
    files) plus model_base.py: the model's digest covers exactly what it loads."""
    spec = importlib.util.find_spec(f"{UPSTREAM_PACKAGE}.{module.split('.')[0]}")
    if spec is None or not spec.origin:
        raise OrchestratorError(f"upstream model module {module} is not installed",
                                "install the aot extra: pip install -e '.[aot]'")
    origin = Path(spec.origin)
    base = origin.parent.parent if origin.name == "__init__.py" else origin.parent
    files = sorted(origin.parent.rglob("*.py")) if origin.name == "__init__.py" else [origin]
    return [*files, base / "model_base.py"]


def missing_packages(entry: ModelEntry) -> list[str]:
    """The recorded packages of `entry` that are not installed."""
    return [package for package in entry.packages or ()
            if importlib.util.find_spec(package) is None]


def refuse_missing_packages(entry: ModelEntry, catalogue: ModelCatalogue) -> None:
    """One sentence naming the extra (or package) to install, when one is missing."""
    missing = missing_packages(entry)
    if missing:
        hints = sorted({catalogue.install_hint(package) for package in missing})
        raise OrchestratorError(
            f"model {entry.name} needs {', '.join(missing)}, which "
            f"{'is' if len(missing) == 1 else 'are'} not installed", " and ".join(hints))


def listing_document(catalogue: ModelCatalogue) -> dict[str, Any]:
    """What `--json` prints: the name rule, the seed and every model."""
    return {"rule": catalogue.rule, "seed": catalogue.seed,
            "upstream_problem": catalogue.upstream_problem,
            "models": [{**entry.to_json(catalogue.extras), "select": catalogue.selector(entry)}
                       for entry in catalogue.entries()]}


# -- where each weight file lives under scratch/weights/: the loaders read there, setup
# installs there (torch.hub, torchaudio and Hugging Face hub layouts) ---------------------

TORCH_HUB = "torch-hub"


def torch_hub_dir(root: Path) -> Path:
    """The torch.hub directory the loaders are pointed at."""
    return root / TORCH_HUB


TORCHAUDIO_BASE = "https://download.pytorch.org/torchaudio/"


HF_HUB = "hf-hub"
HF_SNAPSHOT = "ethosu-orchestrator"   # the snapshot folder refs/<revision> names


def hf_hub_cache(root: Path) -> Path:
    """The Hugging Face hub cache the loaders are pointed at (timm's weights)."""
    return root / HF_HUB


def hf_repo_dir(root: Path, weight: WeightFile) -> Path:
    """The Hugging Face hub cache's folder of `weight`'s repository."""
    repo, _revision, _file = weight.hub_file
    return hf_hub_cache(root) / f"models--{repo.replace('/', '--')}"


def weight_path(root: Path, weight: WeightFile) -> Path:
    """Where the loader finds `weight`: torch.hub's load_state_dict_from_url looks in
    <hub>/checkpoints/<file>, torchaudio's assets are <hub>/torchaudio/<key under its base
    URL>, huggingface_hub (offline) in <cache>/models--ORG--REPO/snapshots/<refs/REV>/FILE."""
    if weight.store == HF_HUB:
        _repo, _revision, file = weight.hub_file
        return hf_repo_dir(root, weight) / "snapshots" / HF_SNAPSHOT / file
    if weight.store == "torchaudio":
        return torch_hub_dir(root) / "torchaudio" / weight.url.removeprefix(TORCHAUDIO_BASE)
    return torch_hub_dir(root) / "checkpoints" / weight.filename


def missing_weights(weights: tuple[WeightFile, ...], root: Path) -> list[str]:
    """File names of `weights` not installed under `root`."""
    return [w.filename for w in weights if not weight_path(root, w).is_file()]


def damaged_weights(weights: tuple[WeightFile, ...], root: Path) -> list[Path]:
    """Installed weight files whose sha256 is not their pin (or, unpinned, does not start
    with the prefix upstream names them by). A use hashes them in full: only a compile that
    loads the model (seconds) reads them."""
    damaged = []
    for weight in weights:
        path = weight_path(root, weight)
        expected = weight.sha256 or weight.sha256_prefix
        if expected and path.is_file() and not sha256_of(path).startswith(expected):
            damaged.append(path)
    return damaged
