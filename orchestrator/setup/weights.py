"""Pretrained weights of upstream models (`invoke setup --models NAME`): the pinned URL and
digest are data (orchestrator/data/models.toml), the file comes through the shared download
cache (mirror, --offline), is checked, and is placed where the model's loader looks
(scratch/weights/torch-hub: torch.hub's layout, which torchvision and torchaudio use)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

from orchestrator.aot.models.catalogue import (
    HF_HUB,
    HF_SNAPSHOT,
    ModelCatalogue,
    ModelEntry,
    WeightFile,
    hf_repo_dir,
    load_model_catalogue,
    weight_path,
)
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.file_faults import writing
from orchestrator.foundation.paths import Scratch
from orchestrator.setup.digests import file_digests
from orchestrator.setup.download import Request, cached_file
from orchestrator.setup.lock import write_lock_entry
from orchestrator.setup.options import SetupOptions
from orchestrator.targets.catalogue import unknown_name_error

LOCK_PREFIX = "weights:"


def _unpinned_refusal(weight: WeightFile, model: str) -> OrchestratorError:
    known = (f"only the prefix {weight.sha256_prefix} that upstream puts in the file name"
             if weight.sha256_prefix else "nor does its file name carry a hash")
    accepts = ("a file whose sha256 starts with that prefix" if weight.sha256_prefix
               else "the file as served")
    return OrchestratorError(
        f"the weights {weight.filename} of model {model} have no verified sha256 in "
        f"models.toml ({known}), so setup does not install them unasked",
        f"invoke setup --models {model} --allow-unpinned={weight.name} accepts {accepts} "
        "and records its full digest (or pin sha256 in models.toml)")


def _check_digest(path: Path, weight: WeightFile) -> str:
    """The file's sha256, checked against the pin (full, else the prefix); a file that
    fails is deleted."""
    actual = file_digests(path, ("sha256",))["sha256"]
    expected = weight.sha256 or weight.sha256_prefix
    if not actual.startswith(expected.lower()):
        path.unlink()
        raise OrchestratorError(
            f"{weight.filename} failed its digest check (sha256 "
            f"{'expected' if weight.sha256 else 'prefix expected'} {expected}, got {actual}); "
            "the file was deleted, nothing was installed",
            f"check the mirror's copy of {weight.filename}, then invoke setup --models again")
    return actual


def _place(source: Path, final: Path) -> None:
    """Copy the verified file into place atomically."""
    with writing(final):
        final.parent.mkdir(parents=True, exist_ok=True)
        partial = final.with_name(final.name + ".part")
        shutil.copyfile(source, partial)
        partial.replace(final)


def _point_hub_ref(root: Path, weight: WeightFile) -> None:
    """refs/<revision> names our snapshot, as huggingface_hub's cache layout has it."""
    if weight.store != HF_HUB:
        return
    _repo, revision, _file = weight.hub_file
    ref = hf_repo_dir(root, weight) / "refs" / revision
    with writing(ref):
        ref.parent.mkdir(parents=True, exist_ok=True)
        ref.write_text(HF_SNAPSHOT)


def install_weight(weight: WeightFile, model: str, options: SetupOptions,
                   where: Scratch) -> dict[str, Any]:
    """Install one weight file (a no-op when it is in place and checks); its lock entry."""
    if not weight.pinned and not options.unpinned_ok(weight.name):
        raise _unpinned_refusal(weight, model)
    final = weight_path(where.weights, weight)
    _point_hub_ref(where.weights, weight)
    if final.is_file() and not options.forced(weight.name):
        sha256 = _check_digest(final, weight)
    else:
        mirror = options.mirror.rstrip("/")
        request = Request(url=f"{mirror}/{weight.filename}" if mirror else weight.url,
                          filename=weight.filename,
                          digests={"sha256": weight.sha256} if weight.pinned else {},
                          hint=f"invoke setup --models {model} with --mirror URL (or "
                               f"ETHOSU_ORCH_MIRROR), or put {weight.filename} in the "
                               "download cache; --random-weights compiles without it")
        cached = cached_file(options.download_cache(where), request, offline=options.offline,
                             policy=options.policy)
        sha256 = _check_digest(cached, weight)
        _place(cached, final)
    return {"kind": "weights", "model": model, "url": weight.url, "path": str(final),
            "sha256": sha256, "pinned": weight.pinned,
            "verified": "sha256" if weight.pinned else f"sha256 prefix {weight.sha256_prefix}"
            if weight.sha256_prefix else "nothing (no digest known; accepted as served)"}


def _entry(catalogue: ModelCatalogue, name: str) -> ModelEntry:
    entry = catalogue.find(name)
    if entry is None:
        raise unknown_name_error("model", name, catalogue.names(), "invoke models")
    if entry.fetches:
        raise OrchestratorError(f"model {name}'s weights cannot be installed by this tool: "
                                f"{entry.fetches} itself",
                                "write a .py model file that loads your local copy")
    return entry


def install_model_weights(models: tuple[str, ...], options: SetupOptions, where: Scratch,
                          catalogue: ModelCatalogue | None = None) -> dict[str, dict[str, Any]]:
    """Install the pretrained weights of `models`; their lock entries by lock name."""
    catalogue = catalogue or load_model_catalogue()
    entries = [_entry(catalogue, name) for name in models]   # every name checked first
    installed: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if not entry.weights:
            print(f"setup: model {entry.name} has no pretrained weights to install",
                  file=sys.stderr)
        for weight in entry.weights:
            record = install_weight(weight, entry.name, options, where)
            write_lock_entry(where, LOCK_PREFIX + weight.name, record)
            installed[LOCK_PREFIX + weight.name] = record
    return installed
