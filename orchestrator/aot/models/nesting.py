"""Inputs and outputs of any nesting (tuples, lists, dicts of tensors), flattened in the
order the exported program takes and gives them (torch.utils._pytree's: sequences in order,
dicts in insertion order), every leaf named by its path: `inputs[1][0]`, `output['h']`.

The structure is kept as JSON in the manifest so a product's flat tensors can be put back
together (to run the float model on a new input set). No torch import: leaves are anything
that is not a tuple, list or dict."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from orchestrator.foundation.errors import OrchestratorError

INPUTS_ROOT = "inputs"
OUTPUT_ROOT = "output"
LEAF: None = None   # a leaf in a structure record
STEP = re.compile(r"\[(\d+|'[^']*'|\"[^\"]*\")\]")
CONTAINERS = {"tuple": tuple, "list": list}


def _children(value: Any) -> list[tuple[str, Any]] | None:
    """(path suffix, child) of a container in flatten order; None for a leaf."""
    if isinstance(value, (tuple, list)):
        return [(f"[{position}]", item) for position, item in enumerate(value)]
    if isinstance(value, dict):
        return [(f"[{key!r}]", item) for key, item in value.items()]
    return None


def named_leaves(value: Any, root: str) -> Iterator[tuple[str, Any]]:
    """Every leaf of `value` with its path from `root`, in the program's flattened order."""
    children = _children(value)
    if children is None:
        yield root, value
        return
    for suffix, child in children:
        yield from named_leaves(child, root + suffix)


def leaves(value: Any) -> list[Any]:
    """The leaves of `value` in flattened order."""
    return [leaf for _, leaf in named_leaves(value, "")]


def leaf_names(value: Any, root: str) -> list[str]:
    """Each leaf's path from `root`, in flattened order."""
    return [name for name, _ in named_leaves(value, root)]


def input_names(args: Sequence[Any]) -> list[str]:
    """The names of a model's flattened positional inputs: `inputs[0]`, `inputs[1][0]`, ..."""
    return leaf_names(tuple(args), INPUTS_ROOT)


def output_names(outputs: Any) -> list[str]:
    """The names of a model's flattened outputs: `output` for one tensor, `output[0]`, ..."""
    return leaf_names(outputs, OUTPUT_ROOT)


def structure(value: Any) -> Any:
    """The nesting of `value` as JSON: null for a leaf, {"tuple"|"list": [...]} or
    {"dict": [[key, ...], ...]} (keys kept in order, strings or integers)."""
    if isinstance(value, (tuple, list)):
        return {"list" if isinstance(value, list) else "tuple":
                [structure(item) for item in value]}
    if isinstance(value, dict):
        return {"dict": [[key, structure(item)] for key, item in value.items()]}
    return LEAF


def leaf_count(record: Any) -> int:
    """How many leaves a structure record holds."""
    if record is LEAF:
        return 1
    if "dict" in record:
        return sum(leaf_count(item) for _, item in record["dict"])
    kind = next(iter(record))
    return sum(leaf_count(item) for item in record[kind])


def rebuild(record: Any, flat: Sequence[Any]) -> Any:
    """The nested value of `record`'s shape holding `flat`'s leaves in order."""
    if leaf_count(record) != len(flat):
        raise ValueError(f"the structure holds {leaf_count(record)} leaves, got {len(flat)}")
    pending = iter(flat)
    return _fill(record, pending)


def _fill(record: Any, pending: Iterator[Any]) -> Any:
    if record is LEAF:
        return next(pending)
    if "dict" in record:
        return {key: _fill(item, pending) for key, item in record["dict"]}
    kind = next(iter(record))
    return CONTAINERS[kind](_fill(item, pending) for item in record[kind])


def map_leaves(function: Callable[[Any], Any], value: Any) -> Any:
    """`value` with every leaf replaced by `function(leaf)`, the nesting kept."""
    return rebuild(structure(value), [function(leaf) for leaf in leaves(value)])


def check_leaves(value: Any, root: str, accept: Callable[[Any], Any], what: str,
                 fix: str) -> Any:
    """`value` with each leaf converted by `accept` (None: not acceptable, refused naming the
    leaf's path and type)."""
    converted = []
    for name, leaf in named_leaves(value, root):
        result = accept(leaf)
        if result is None:
            raise OrchestratorError(f"{what}: {name} is a {type(leaf).__name__}, not a tensor",
                                    fix)
        converted.append(result)
    return rebuild(structure(value), converted)


def _path_steps(name: str, root: str) -> list[Any] | None:
    """`inputs[1]['h']` -> [1, 'h'] (None: not a path from `root`)."""
    if not name.startswith(root):
        return None
    rest = name[len(root):]
    steps = STEP.findall(rest)
    if "".join(f"[{step}]" for step in steps) != rest or not steps:
        return None
    return [ast.literal_eval(step) for step in steps]


def _as_containers(tree: dict[Any, Any]) -> Any:
    """A tree of dicts: integer keys 0..n-1 become tuples, others stay dicts."""
    items = {key: _as_containers(value) if isinstance(value, dict) else value
             for key, value in tree.items()}
    if all(isinstance(key, int) for key in items) and sorted(items) == list(range(len(items))):
        return tuple(items[position] for position in range(len(items)))
    return items


def from_paths(named: Mapping[str, Any], root: str = INPUTS_ROOT) -> tuple[Any, ...] | None:
    """Positional inputs nested as their leaf paths say (`inputs[0]`, `inputs[1][0]`, ...);
    None when a name is not such a path or the positions leave gaps."""
    tree: dict[Any, Any] = {}
    for name, value in named.items():
        steps = _path_steps(name, root)
        if steps is None:
            return None
        node = tree
        for step in steps[:-1]:
            node = node.setdefault(step, {})
            if not isinstance(node, dict):
                return None
        node[steps[-1]] = value
    nested = _as_containers(tree)
    return nested if isinstance(nested, tuple) else None
