"""The matrix TOML file: schema, validation and expansion into cells."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from orchestrator.aot.models.catalogue import UPSTREAM_PREFIX
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import load_toml
from orchestrator.options.fields import seconds
from orchestrator.regress.plan.cell_options import check_option_set
from orchestrator.regress.plan.cells import Cell, Expect, Mode, Upstream
from orchestrator.results import Kind
from orchestrator.sim.plan import place
from orchestrator.targets import load_catalogue

MATRIX_SCHEMA = 1
DEFAULT_OPTIONS = "default"
DEFAULT_TIMEOUT_S = 300.0
MODE_WEIGHTS = {Mode.RUN: 10, Mode.PTE: 10, Mode.VERIFY: 8, Mode.APP: 6, Mode.COMPILE: 4}
LANE_MODES = [m.value for m in Mode if m is not Mode.PTE]   # pte cells come from `pte = [...]`
HOST_MODES = (Mode.COMPILE, Mode.VERIFY)   # no simulator: compile only, or the NPU model
SIM_KINDS = ("qemu", "fvp", "auto")
MODEL_FILE_SUFFIXES = (".py", ".pt", ".pth")
TOP_KEYS = {"schema", "name", "description", "baselines", "defaults", "options", "lanes",
            "expect", "tolerances", "upstream"}
LANE_KEYS = {"name", "mode", "models", "apps", "pte", "targets", "options", "sim",
             "timeout_s"}
EXPECT_KEYS = {"models", "targets", "options", "lanes", "status", "reason", "kind"}
UPSTREAM_KEYS = {"models", "targets", "status", "reason", "tolerance", "source"}
UPSTREAM_STATUSES = ("pass", "xfail", "skip", "untested")
UPSTREAM_TOLERANCES = {"atol", "rtol", "qtol"}


class MatrixError(OrchestratorError):
    """The matrix file is malformed; the message names the file and the entry."""


@dataclass(frozen=True)
class ExpectRule:
    """Glob patterns selecting cells, and what to expect of them."""

    status: Expect
    reason: str
    kind: str | None = None
    models: tuple[str, ...] = ("*",)
    targets: tuple[str, ...] = ("*",)
    options: tuple[str, ...] = ("*",)
    lanes: tuple[str, ...] = ("*",)

    def matches(self, model: str, target: str, options: str, lane: str) -> bool:
        """True when every pattern group has a pattern matching the cell."""
        pairs = ((self.models, model), (self.targets, target), (self.options, options),
                 (self.lanes, lane))
        return all(any(fnmatch.fnmatchcase(value, pat) for pat in pats) for pats, value in pairs)


@dataclass(frozen=True)
class UpstreamRule:
    """Upstream's expectation (data beside the cells) for the models x targets it matches."""

    upstream: Upstream
    models: tuple[str, ...] = ("*",)
    targets: tuple[str, ...] = ("*",)

    def matches(self, model: str, target: str) -> bool:
        return (any(fnmatch.fnmatchcase(model, pat) for pat in self.models) and
                any(fnmatch.fnmatchcase(target, pat) for pat in self.targets))


@dataclass(frozen=True)
class Lane:
    """models x targets x option sets, all in one mode on one simulator kind, or on one
    named simulator (a board: sim = "qemu-mps3-an524")."""

    name: str
    mode: Mode
    models: tuple[tuple[str, str], ...]
    targets: tuple[str, ...]
    options: tuple[str, ...]
    sim: str | None
    timeout_s: float


@dataclass
class Matrix:
    """A parsed, validated matrix file."""

    path: Path
    name: str
    description: str
    lanes: list[Lane]
    option_sets: dict[str, dict[str, Any]]
    rules: list[ExpectRule]
    tolerances: dict[str, dict[str, float]] = field(default_factory=dict)
    baselines: Path | None = None
    upstream: list[UpstreamRule] = field(default_factory=list)


def load_matrix(path: str | Path) -> Matrix:
    """Read and validate a matrix TOML file."""
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise MatrixError(f"matrix file {path} does not exist",
                          "invoke regress --matrix examples/regress/qemu.toml")
    try:
        document = load_toml(path)
    except ValueError as error:
        raise MatrixError(f"{path} is not valid TOML ({error})", f"fix {path}") from None
    return parse_matrix(document, path)


def parse_matrix(document: dict[str, Any], path: Path) -> Matrix:
    """Validate a matrix document (already parsed TOML) read from `path`."""
    check = _Checker(path)
    check.keys(document, TOP_KEYS, "the top level")
    if document.get("schema", MATRIX_SCHEMA) != MATRIX_SCHEMA:
        check.fail(f"schema {document.get('schema')!r} is not {MATRIX_SCHEMA}")
    defaults = check.table(document, "defaults")
    option_sets = {DEFAULT_OPTIONS: {}, **check.table(document, "options")}
    for name, options in option_sets.items():
        check.require(isinstance(options, dict), f"[options.{name}] must be a table")
        check.option_set(options, f"[options.{name}]")
    timeout = check.seconds(defaults.get("timeout_s", DEFAULT_TIMEOUT_S), "[defaults] timeout_s")
    lanes = [_lane(check, entry, index, option_sets, timeout)
             for index, entry in enumerate(check.array(document, "lanes"))]
    check.require(bool(lanes), "it has no [[lanes]]")
    check.require(len({lane.name for lane in lanes}) == len(lanes), "two lanes share a name")
    rules = [_rule(check, entry, index) for index, entry in enumerate(check.array(document,
                                                                                "expect"))]
    baselines = document.get("baselines")
    return Matrix(
        path=path,
        name=str(document.get("name", path.stem)),
        description=str(document.get("description", "")),
        lanes=lanes,
        option_sets=option_sets,
        rules=rules,
        tolerances=_tolerances(check, check.table(document, "tolerances")),
        baselines=(path.parent / baselines).resolve() if baselines else None,
        upstream=[_upstream(check, entry, index)
                  for index, entry in enumerate(check.array(document, "upstream"))],
    )


def _lane(check: _Checker, entry: Any, index: int, option_sets: dict[str, Any],
          timeout: float) -> Lane:
    """One [[lanes]] entry."""
    where = f"[[lanes]] #{index + 1}"
    check.require(isinstance(entry, dict), f"{where} must be a table")
    check.keys(entry, LANE_KEYS, where)
    mode = check.choice(entry.get("mode", Mode.RUN.value), LANE_MODES, where)
    if "pte" in entry:
        check.require(mode == Mode.RUN.value and not {"models", "apps"} & set(entry),
                      f"{where}: pte = [...] runs ready artifacts, so mode = {mode!r}, "
                      f"models and apps do not apply beside it")
        mode = Mode.PTE.value
    sim = entry.get("sim", "auto")
    check.choice(sim, SIM_KINDS + simulator_names(), f"{where} sim")
    options = tuple(check.strings(entry.get("options", [DEFAULT_OPTIONS]), f"{where} options"))
    unknown = [name for name in options if name not in option_sets]
    check.require(not unknown, f"{where} names option sets {unknown} that [options] lacks")
    return Lane(
        name=str(entry.get("name", f"lane{index + 1}")),
        mode=Mode(mode),
        models=_lane_models(check, entry, where),
        targets=tuple(check.strings(entry.get("targets", []), f"{where} targets")) or
        (() if mode == Mode.PTE.value else check.fail(f"{where} has no targets")),
        options=options,
        sim=None if Mode(mode) in HOST_MODES else sim,
        timeout_s=check.seconds(entry.get("timeout_s", timeout), f"{where} timeout_s"),
    )


def _lane_models(check: _Checker, entry: dict[str, Any], where: str
                 ) -> tuple[tuple[str, str], ...]:
    """The lane's (name, spec) pairs: models, apps, or artifacts (pte = [...], each file
    named relative to the matrix file and present now)."""
    if "pte" not in entry:
        models = tuple(_model(check, item, where)
                       for item in entry.get("models", entry.get("apps", [])))
        return models or check.fail(f"{where} has no models")
    files = [(check.path.parent / item).resolve()
             for item in check.strings(entry["pte"], f"{where} pte")]
    missing = [str(file) for file in files if not file.is_file()]
    check.require(bool(files), f"{where} has an empty pte list")
    check.require(not missing, f"{where} names artifacts that do not exist: {missing}")
    return tuple((file.stem, str(file)) for file in files)


def _model(check: _Checker, item: Any, where: str) -> tuple[str, str]:
    """(display name, spec) from 'add', 'nets/x.py', 'pkg.mod:fn' or {name, spec}."""
    if isinstance(item, dict):
        check.keys(item, {"name", "spec"}, f"{where} model {item}")
        check.require("spec" in item, f"{where} model {item} has no spec")
        spec = str(item["spec"])
        return str(item.get("name", _model_name(spec))), _model_path(check, spec)
    check.require(isinstance(item, str) and bool(item), f"{where} model {item!r} is not a name")
    return _model_name(item), _model_path(check, item)


def _model_path(check: _Checker, spec: str) -> str:
    """Model files are named relative to the matrix file; names and module:function as is."""
    if ":" in spec or Path(spec).suffix not in MODEL_FILE_SUFFIXES:
        return spec
    return str((check.path.parent / spec).resolve())


def _model_name(spec: str) -> str:
    """A short display name: built-in and upstream names as is (upstream:mv2 too, apart from
    the built-in mv2), files by stem, module:function by function."""
    if spec.startswith(UPSTREAM_PREFIX):
        return spec
    if ":" in spec:
        return spec.rpartition(":")[2]
    if spec.endswith(".py") or "/" in spec:
        return Path(spec).stem
    return spec


def _rule(check: _Checker, entry: Any, index: int) -> ExpectRule:
    """One [[expect]] entry."""
    where = f"[[expect]] #{index + 1}"
    check.require(isinstance(entry, dict), f"{where} must be a table")
    check.keys(entry, EXPECT_KEYS, where)
    status = Expect(check.choice(entry.get("status", ""), [e.value for e in Expect], where))
    reason = str(entry.get("reason", ""))
    check.require(status is Expect.PASS or bool(reason), f"{where} needs a reason for {status}")
    kind = entry.get("kind")
    if kind is not None:
        check.choice(kind, [k.value for k in Kind], f"{where} kind")
        check.require(status is Expect.XFAIL, f"{where}: kind only applies to status = 'xfail'")
    patterns = {key: tuple(check.strings(entry.get(key, ["*"]), f"{where} {key}"))
                for key in ("models", "targets", "options", "lanes")}
    return ExpectRule(status=status, reason=reason, kind=kind, **patterns)


def _upstream(check: _Checker, entry: Any, index: int) -> UpstreamRule:
    """One [[upstream]] entry: upstream's mark, reason, tolerance and source for some cells."""
    where = f"[[upstream]] #{index + 1}"
    check.require(isinstance(entry, dict), f"{where} must be a table")
    check.keys(entry, UPSTREAM_KEYS, where)
    status = check.choice(entry.get("status", ""), UPSTREAM_STATUSES, f"{where} status")
    reason = str(entry.get("reason", ""))
    check.require(status in ("pass", "untested") or bool(reason),
                  f"{where} needs upstream's reason for {status}")
    tolerance = entry.get("tolerance", {})
    check.require(isinstance(tolerance, dict) and set(tolerance) <= UPSTREAM_TOLERANCES and
                  all(isinstance(v, (int, float)) for v in tolerance.values()),
                  f"{where} tolerance must be {{ atol = .., rtol = .., qtol = .. }}")
    source = str(entry.get("source", ""))
    check.require(status == "untested" or ":" in source,
                  f"{where} needs source = 'upstream file:line' for what it cites")
    return UpstreamRule(
        upstream=Upstream(status, reason, tuple(sorted((k, float(v))
                                                       for k, v in tolerance.items())), source),
        models=tuple(check.strings(entry.get("models", ["*"]), f"{where} models")),
        targets=tuple(check.strings(entry.get("targets", ["*"]), f"{where} targets")))


def _tolerances(check: _Checker, table: dict[str, Any]) -> dict[str, dict[str, float]]:
    """[tolerances] 'metric-glob' = { rel = 0.01, abs = 0 }."""
    tolerances = {}
    for pattern, spec in table.items():
        check.require(isinstance(spec, dict) and set(spec) <= {"rel", "abs"},
                      f"[tolerances] {pattern!r} must be {{ rel = .., abs = .. }}")
        tolerances[pattern] = {"rel": float(spec.get("rel", 0.0)),
                               "abs": float(spec.get("abs", 0.0))}
    return tolerances


def expand(matrix: Matrix, catalogue: Any) -> list[Cell]:
    """Every cell of the matrix, in a stable order; duplicate keys are refused."""
    cells: dict[str, Cell] = {}
    for lane in matrix.lanes:
        for target_name, model, spec in _lane_pairs(matrix, lane):
            target = _target(matrix, lane, catalogue, target_name)
            sim, sim_kind = _resolve_sim(matrix, lane, target)
            for options_name in lane.options:
                cell = _cell(matrix, lane, target.name, (sim, sim_kind), model, spec,
                             options_name)
                if cell.key in cells:
                    raise MatrixError(
                        f"{matrix.path}: cell {cell.key} appears in lanes "
                        f"{cells[cell.key].lane} and {lane.name}",
                        "give one of them a distinct option set name")
                cells[cell.key] = cell
    return sorted(cells.values(), key=lambda cell: cell.key)


def _lane_pairs(matrix: Matrix, lane: Lane) -> list[tuple[str, str, str]]:
    """(target, model, spec) of every cell of the lane: its targets x its models; a pte
    lane without targets runs each artifact on the target read from the file (a listed
    target the file was not compiled for is refused by its cell, with the reason)."""
    if lane.targets:
        return [(target, model, spec) for target in lane.targets
                for model, spec in lane.models]
    from orchestrator.artifacts.inspection import inspect_artifact
    from orchestrator.artifacts.run import target_of

    pairs = []
    for model, spec in lane.models:
        try:
            pairs.append((target_of(inspect_artifact(Path(spec)), ""), model, spec))
        except OrchestratorError as error:
            raise MatrixError(f"{matrix.path}: lane {lane.name}: {error.cause}",
                              f"fix {matrix.path} ({error.next_step})") from None
    return pairs


def _cell(matrix: Matrix, lane: Lane, target: str, sim: tuple[str | None, str | None],
          model: str, spec: str, options_name: str) -> Cell:
    """One cell with its expectation resolved (the last matching rule wins)."""
    expect, reason, kind = Expect.PASS, "", None
    for rule in matrix.rules:
        if rule.matches(model, target, options_name, lane.name):
            expect, reason, kind = rule.status, rule.reason, rule.kind
    upstream = None
    for upstream_rule in matrix.upstream:   # the last matching entry wins, as for [[expect]]
        if upstream_rule.matches(model, target):
            upstream = upstream_rule.upstream
    return Cell(
        model=model,
        model_spec=spec,
        target=target,
        options_name=options_name,
        options=tuple(sorted(matrix.option_sets[options_name].items())),
        mode=lane.mode,
        lane=lane.name,
        sim=sim[0],
        sim_kind=sim[1],
        timeout_s=lane.timeout_s,
        expect=expect,
        expect_reason=reason,
        expect_kind=kind,
        weight=MODE_WEIGHTS[lane.mode],
        upstream=upstream,
    )


def _target(matrix: Matrix, lane: Lane, catalogue: Any, name: str) -> Any:
    """The lane's target, or the catalogue's one line naming the matrix file and lane."""
    try:
        return catalogue.target(name)
    except OrchestratorError as error:
        raise MatrixError(f"{matrix.path}: lane {lane.name}: {error.cause}",
                          f"fix {matrix.path} ({error.next_step})") from None


def simulator_names() -> tuple[str, ...]:
    """Every simulator the catalogue names (a lane may run on one board's simulator)."""
    return tuple(sorted(load_catalogue().simulators))


def _resolve_sim(matrix: Matrix, lane: Lane, target: Any) -> tuple[str | None, str | None]:
    """(simulator name, kind) a lane's cells run on for `target` (None for compile-only):
    the first kind the run plan can place it on (an NPU target on QEMU runs on the
    NPU model where the catalogue has one; auto tries an FVP first for it)."""
    if lane.sim is None:
        return None, None
    auto = ("fvp", "qemu") if target.has_npu else ("qemu", "fvp")
    kinds: tuple[str, ...] = auto if lane.sim == "auto" else (lane.sim,)
    refusals: list[OrchestratorError] = []
    for kind in kinds:
        try:
            simulator = place(target, kind).simulator
            return simulator.name, simulator.kind
        except OrchestratorError as error:
            refusals.append(error)
    raise MatrixError(
        f"{matrix.path}: lane {lane.name} asks for sim = {lane.sim!r} but target {target.name} "
        f"cannot run there ({'; '.join(refusal.cause for refusal in refusals)})",
        "use sim = 'fvp', or mode = 'compile' for Vela estimates only" if target.has_npu
        else f"in lane {lane.name}, {refusals[-1].next_step}")


class _Checker:
    """Validation helpers that raise MatrixError naming the file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, problem: str) -> Any:
        raise MatrixError(f"matrix {self.path}: {problem}", f"fix {self.path}")

    def require(self, condition: bool, problem: str) -> None:
        if not condition:
            self.fail(problem)

    def keys(self, table: dict[str, Any], allowed: set[str], where: str) -> None:
        unknown = sorted(set(table) - allowed)
        self.require(not unknown, f"{where} has unknown keys {unknown} "
                                  f"(allowed: {', '.join(sorted(allowed))})")

    def seconds(self, value: Any, where: str) -> float:
        """A positive number of seconds, or the one-line error naming the file."""
        try:
            return seconds(value, where)
        except OrchestratorError as error:
            return float(self.fail(error.cause))

    def option_set(self, options: dict[str, Any], where: str) -> None:
        """Every key an option (orchestrator.options), every value of its type."""
        try:
            check_option_set(options, where, f"fix {self.path} (invoke run --help lists them)")
        except OrchestratorError as error:
            self.fail(error.cause)

    def table(self, document: dict[str, Any], key: str) -> dict[str, Any]:
        value = document.get(key, {})
        self.require(isinstance(value, dict), f"{key} must be a table")
        return dict(value)

    def array(self, document: dict[str, Any], key: str) -> list[Any]:
        value = document.get(key, [])
        self.require(isinstance(value, list), f"{key} must be an array of tables")
        return list(value)

    def strings(self, value: Any, where: str) -> list[str]:
        if isinstance(value, str):
            value = [value]
        self.require(isinstance(value, list) and all(isinstance(v, str) for v in value),
                     f"{where} must be a list of strings")
        return [str(item) for item in value]

    def choice(self, value: Any, allowed: Any, where: str) -> str:
        self.require(value in allowed, f"{where}: {value!r} is not one of {list(allowed)}")
        return str(value)
