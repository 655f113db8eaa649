"""Several targets at once: 'ethos-u85-128,ethos-u85-2048' or a family wildcard
'ethos-u85-*' (fnmatch patterns over the catalogue's names)."""

from __future__ import annotations

import fnmatch

from orchestrator.foundation.errors import OrchestratorError
from orchestrator.targets.catalogue import load_catalogue, unknown_name_error

WILDCARD = set("*?[")


def expand_targets(spec: str) -> list[str]:
    """The catalogue targets `spec` names, in the order given (a wildcard's matches in
    catalogue order), each once."""
    names = load_catalogue().names()
    chosen: list[str] = []
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        if WILDCARD & set(item):
            matches = fnmatch.filter(names, item)
            if not matches:
                raise OrchestratorError(f"target pattern '{item}' matches no target",
                                        "invoke targets lists them all")
        elif item in names:
            matches = [item]
        else:
            raise unknown_name_error("target", item, names, "invoke targets")
        chosen += [name for name in matches if name not in chosen]
    if not chosen:
        raise OrchestratorError("no target given", "pass --target, e.g. --target ethos-u85-128")
    return chosen
