"""Load an upstream examples/models model as upstream's aot_arm_compiler does (the module and
class of MODEL_NAME_TO_MODEL, get_eager_model() and get_example_inputs(), as
EagerModelFactory.create_model calls them), with torch's RNG seeded around the load and its
pretrained weights read from scratch/weights (installed by `invoke setup --models NAME`),
never downloaded at load time. Imports torch: only called when compiling."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from orchestrator.aot.models.catalogue import (
    UPSTREAM_PACKAGE,
    UPSTREAM_PREFIX,
    ModelEntry,
    damaged_weights,
    hf_hub_cache,
    load_model_catalogue,
    missing_weights,
    refuse_missing_packages,
    torch_hub_dir,
)
from orchestrator.aot.models.sources import ModelRef
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.paths import scratch


@contextlib.contextmanager
def seeded_rng(seed: int) -> Iterator[None]:
    """torch's RNG seeded with `seed`, the caller's state restored afterwards."""
    import torch

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


@contextlib.contextmanager
def hub_dir(path: Path) -> Iterator[None]:
    """torch.hub (and so torchvision's weight loader) looks in `path` for checkpoints."""
    import torch.hub

    previous = torch.hub.get_dir()
    torch.hub.set_dir(str(path))
    try:
        yield
    finally:
        torch.hub.set_dir(previous)


@contextlib.contextmanager
def hf_offline_cache(path: Path) -> Iterator[None]:
    """huggingface_hub (timm's pretrained weights) reads only the cache at `path`."""
    try:
        from huggingface_hub import constants
    except ImportError:
        yield
        return
    with replaced(constants, "HF_HUB_OFFLINE", True), replaced(constants, "HF_HUB_CACHE",
                                                                 str(path)):
        yield


@contextlib.contextmanager
def replaced(owner: Any, attribute: str, value: Any) -> Iterator[None]:
    """`owner.attribute` is `value` inside the block."""
    original = getattr(owner, attribute)
    setattr(owner, attribute, value)
    try:
        yield
    finally:
        setattr(owner, attribute, original)


def _refuse_download(name: str) -> Any:
    def refuse(url: str, *_args: Any, **_kwargs: Any) -> None:
        raise OrchestratorError(
            f"model {name} tried to download {url} while loading; its weights are not "
            "recorded in orchestrator/data/models.toml, so this tool does not fetch them",
            f"add the file to models.toml [weights] and run invoke setup --models {name}, "
            "or pass --random-weights")
    return refuse


@contextlib.contextmanager
def package_loader_off(package: str) -> Iterator[None]:
    """The pretrained loader of `package` does nothing (timm: load_pretrained, which its
    model builders call when pretrained=True)."""
    if package != "timm":
        yield
        return
    from timm.models import _builder

    with replaced(_builder, "load_pretrained", lambda *_args, **_kwargs: None):
        yield


# The functions through which a package downloads at load time, (url or key, destination,
# ...) each: torch.hub's (torchvision, timm's URL weights) and torchaudio's assets.
DOWNLOADERS = {"torch": ("torch.hub", "download_url_to_file"),
               "torchaudio": ("torchaudio.utils.download", "_download")}


@contextlib.contextmanager
def downloads_replaced(packages: tuple[str, ...], replacement: Any) -> Iterator[None]:
    """Every downloader of torch and of `packages` is `replacement` inside the block (a
    package that does not import is left alone: the model's own import names it)."""
    with contextlib.ExitStack() as stack:
        for package in ("torch", *packages):
            if package not in DOWNLOADERS:
                continue
            module_name, attribute = DOWNLOADERS[package]
            try:
                module = importlib.import_module(module_name)
            except Exception:  # noqa: BLE001 - a broken install fails at the model's import
                continue
            stack.enter_context(replaced(module, attribute, replacement))
        yield


@contextlib.contextmanager
def random_weights(entry: ModelEntry) -> Iterator[None]:
    """Pretrained weights are not loaded: each checkpoint the loader downloads (torch.hub,
    torchaudio) is an empty state dict in a private hub dir, load_state_dict keeps the
    model's own (seeded) initial weights, and the package's own pretrained loader (timm's)
    is switched off."""
    import tempfile

    import torch

    def empty_checkpoint(_url: str, destination: Any, *_args: Any, **_kwargs: Any) -> None:
        torch.save({}, destination)

    def keep_initial(module: Any, *_args: Any, **_kwargs: Any) -> Any:
        return torch.nn.modules.module._IncompatibleKeys([], [])

    with tempfile.TemporaryDirectory(prefix="random-weights-") as private, hub_dir(
            Path(private)), downloads_replaced(entry.packages or (), empty_checkpoint), \
            replaced(torch.nn.Module, "load_state_dict", keep_initial), \
            package_loader_off(entry.random_weights_package):
        yield


def _entry(ref: ModelRef) -> ModelEntry:
    catalogue = load_model_catalogue()
    entry = catalogue.find(ref.name if ref.name.startswith(UPSTREAM_PREFIX)
                           else UPSTREAM_PREFIX + ref.name)
    if entry is None:
        raise OrchestratorError(f"upstream model {ref.name} is not in the installed "
                                "ExecuTorch's examples/models", "invoke models lists them")
    refuse_missing_packages(entry, catalogue)
    if entry.fetches and ref.weights != "random":
        random = " or add --random-weights" if entry.random_weights_package else ""
        raise OrchestratorError(
            f"model {ref.name} cannot be loaded here: {entry.fetches} at load time, which "
            "this tool does not manage",
            "write a .py file that builds it from your local copy of the weights "
            f"(ModelUnderTest, ModelInputs) and pass that to --model{random}")
    return entry


@contextlib.contextmanager
def _weights_context(ref: ModelRef, entry: ModelEntry) -> Iterator[None]:
    """Where the loader finds its weights: the installed files (torch.hub and the Hugging
    Face hub cache pointed at scratch/weights, offline), or seeded random ones."""
    if ref.weights == "random":
        with random_weights(entry):
            yield
        return
    root = scratch().weights
    missing = missing_weights(entry.weights, root)
    if missing:
        unpinned = ",".join(w.name for w in entry.weights if not w.pinned)
        allow = f" --allow-unpinned={unpinned}" if unpinned else ""
        raise OrchestratorError(
            f"the pretrained weights of model {ref.name} ({', '.join(missing)}) are not "
            f"installed in {root}",
            f"invoke setup --models {ref.name}{allow} (a machine without internet: add "
            "--mirror URL, or put the files in the download cache and add --offline), or "
            "add --random-weights for seeded random weights")
    _refuse_damaged(ref, entry, root)
    with hub_dir(torch_hub_dir(root)), hf_offline_cache(hf_hub_cache(root)):
        yield


def _refuse_damaged(ref: ModelRef, entry: ModelEntry, root: Path) -> None:
    """Weights that differ from their pin are removed and the compile refused, never run."""
    damaged = damaged_weights(entry.weights, root)
    for path in damaged:
        path.unlink(missing_ok=True)
    if damaged:
        raise OrchestratorError(
            f"{', '.join(str(path) for path in damaged)} of model {ref.name} differs from its "
            "pinned sha256: removed", f"invoke setup --models {ref.name}")


def _instantiate(ref: ModelRef) -> tuple[Any, Any]:
    module_name, _, class_name = ref.location.partition(":")
    module = importlib.import_module(f"{UPSTREAM_PACKAGE}.{module_name}")
    model_class = getattr(module, class_name)
    instance = model_class()
    return instance.get_eager_model(), instance.get_example_inputs()


def load_upstream(ref: ModelRef) -> tuple[Any, Any]:
    """(model, example inputs as upstream returns them: a tuple, possibly nested)."""
    entry = _entry(ref)
    # The weights context imports the model's packages too (to replace their downloaders):
    # a package that fails there is the same one-line refusal as in the model's own code.
    try:
        with _weights_context(ref, entry), seeded_rng(ref.seed or 0), downloads_replaced(
                entry.packages or (), _refuse_download(ref.name)) \
                if ref.weights != "random" else contextlib.nullcontext():
            return _instantiate(ref)
    except OrchestratorError:
        raise
    except ImportError as error:
        package = (error.name or str(error)).split(".")[0]
        raise OrchestratorError(
            f"model {ref.name} needs {package}, which cannot be imported ({error})",
            load_model_catalogue().install_hint(package)) from None
    except Exception as error:  # noqa: BLE001 - upstream's model code and its packages
        raise OrchestratorError(
            f"loading upstream model {ref.name} ({ref.location}) failed: "
            f"{type(error).__name__}: {str(error)[:200]}",
            f"check that {' and '.join(entry.packages or ('its packages',))} import "
            "(python -c 'import NAME') and are built for the installed torch") from None
