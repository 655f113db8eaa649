"""Every run option reaches the stage that reads it, from `invoke run` (through invoke's own
parser and the real task's flags) and from a regress matrix option set (through the matrix
loader and the cell's run request). A new option without a row here fails the first test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from invoke import Collection
from invoke.parser import Parser, ParserContext

import tasks
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.options.fields import from_cli, specs
from orchestrator.options.run import RunRequest
from orchestrator.regress.plan.cell_options import run_request
from orchestrator.regress.plan.matrix import expand, load_matrix
from orchestrator.runner.firmware import runtime_config
from orchestrator.runner.model_run import model_choices, runner_options_for
from orchestrator.sim.limits import run_limits
from orchestrator.targets import load_catalogue

TARGET = "ethos-u85-128"

# option -> (CLI text, matrix value, what the stage reads); matrix None = not a matrix key
SAMPLES: dict[str, tuple[Any, Any, Any]] = {
    "target": ("cortex-m55", None, "cortex-m55"),
    "model": ("convnet", None, "convnet"),
    "app": ("selftest", None, "selftest"),
    "sim": ("fvp", None, "fvp"),
    "timeout_s": ("12.5", None, 12.5),
    "idle_timeout_s": ("7", 7, 7.0),
    "build_type": ("debug", "debug", "debug"),
    "build_options": (["EOR_STACK_SIZE=0x10000", "EOR_X=1"], ["EOR_STACK_SIZE=0x10000"], None),
    "elf": ("runner.elf", None, "runner.elf"),
    "pte": ("model.bpte", None, "model.bpte"),
    "data": (["a.bin@0x10", "b.bin@0x20"], None, ("a.bin@0x10", "b.bin@0x20")),
    "memory_mode": ("Sram_Only", "Sram_Only", ("Sram_Only", "Sram_Only")),
    "kernel_set": ("common", "common", "common"),
    "method_pool": ("8M", "8M", 8 << 20),
    "temp_pool": ("0x30000", "0x30000", 0x30000),
    "fast_scratch": ("64K", "64K", 64 << 10),
    "quantize": ("a16w8", "a16w8", "a16w8"),
    "delegate": (True, True, True),
    "inputs": ("in.npy", "in.npy", "in.npy"),
    "calibration": ("calib", "calib", "calib"),
    "system_config": ("Ethos_U85_SYS_DRAM_High", "Ethos_U85_SYS_DRAM_High",
                      "Ethos_U85_SYS_DRAM_High"),
    "vela_config": ("my.ini", "my.ini", "my.ini"),
    "vela_flags": ("--optimise=Size", "--optimise Size", None),
    "tosa": (True, True, True),
    "isa": ("dsp", "dsp", "dsp"),
    "strict_export": (False, False, False),
    "torchvision": (True, True, True),
    "random_weights": (True, True, True),
    "atol": ("0.25", 0.25, 0.25),
    "rtol": ("0.5", 0.5, 0.5),
    "qtol": ("3", 3, 3.0),
    "min_snr": ("30", 30, 30.0),
    "top1": (True, True, True),
    "fast": (True, True, True),
    "profile": (True, True, (True, True)),
    "intermediates": (True, True, (True, True)),
    "pmu_trace": (None, True, True),
    "sources": (None, {"executorch": "/src/et"}, {"executorch": Path("/src/et")}),
}


def stage_value(name: str, request: RunRequest) -> Any:
    """What the stage that uses option `name` reads, via the functions that stage calls."""
    target = load_catalogue().target(request.target)
    runner = runner_options_for(target, request)
    compile_options = request.compile.given()   # what compile_model receives
    settings, limits = request.runner, request.runner.thresholds
    sim_limits = run_limits(target.simulators[0], request.timeout_s, request.idle_timeout_s)
    readers = {
        "target": lambda: request.target, "model": lambda: request.model,
        "app": lambda: request.app, "sim": lambda: request.sim,
        "timeout_s": lambda: sim_limits.deadline_s, "idle_timeout_s": lambda: sim_limits.idle_s,
        "build_type": lambda: runner.build_type, "build_options": lambda: request.build_options,
        "elf": lambda: request.elf, "data": lambda: request.data, "pte": lambda: request.pte,
        "memory_mode": lambda: (runner.memory_mode, compile_options.get("memory_mode")),
        **{name: (lambda name=name: compile_options.get(name)) for name in (
            "delegate", "calibration", "system_config", "vela_config", "vela_flags",
            "tosa", "strict_export", "torchvision", "random_weights", "isa")},
        "kernel_set": lambda: runner.kernel_set,
        "method_pool": lambda: runner.pools.method_pool_size,
        "temp_pool": lambda: runner.pools.temp_pool_size,
        "fast_scratch": lambda: runner.pools.fast_scratch_size,
        "quantize": lambda: compile_options.get("quantize"),
        "atol": lambda: limits.atol, "rtol": lambda: limits.rtol, "qtol": lambda: limits.qtol,
        "min_snr": lambda: limits.min_snr_db, "top1": lambda: limits.require_top1,
        "fast": lambda: settings.fast, "pmu_trace": lambda: settings.pmu_trace,
        "profile": lambda: (runner.profile, runtime_config(target, runner).event_tracer),
        "intermediates": lambda: (runner.intermediates, runner.profile),
        "sources": lambda: dict(settings.sources),
        # the runner's input sets (run_prepared: one sample session), never a compile input
        "inputs": lambda: None if model_choices(request.compile).inputs else
        request.compile.inputs,
    }
    return readers[name]()


def cli_request(*argv: str) -> RunRequest:
    """`invoke run ARGV` parsed by invoke with the real task's flags, then built as the task
    body builds it."""
    task = Collection.from_module(tasks)["run"]
    context = ParserContext(name="run", args=task.get_arguments())
    parsed = Parser(contexts=[context]).parse_argv(["run", *argv])
    return from_cli(RunRequest, parsed[0].as_kwargs)


def cli_argv(name: str, value: Any) -> list[str]:
    spec = next(spec for spec in specs(RunRequest) if spec.name == name)
    flag = spec.flag
    if value is True:
        return [flag]
    if value is False:   # a switch on by default: its --no- form
        return [f"--no-{flag[2:]}"]
    values = value if isinstance(value, list) else [value]
    return [item for text in values for item in (flag, text)]


def test_every_option_has_a_reach_row():
    assert set(SAMPLES) == {spec.name for spec in specs(RunRequest)}


@pytest.mark.parametrize("name", [spec.name for spec in specs(RunRequest) if spec.info.cli])
def test_each_flag_reaches_its_stage(name):
    cli, _, expected = SAMPLES[name]
    base = ["--target", TARGET] if name != "target" else []
    request = cli_request(*base, *cli_argv(name, cli))
    default = cli_request("--target", TARGET)
    expected = tuple(cli) if name == "build_options" else expected
    expected = cli if name == "vela_flags" else expected
    assert stage_value(name, request) == expected
    if name != "target":
        assert stage_value(name, request) != stage_value(name, default)


def write_matrix(tmp_path: Path, sets: dict[str, dict[str, Any]]) -> Path:
    def toml(value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict):
            return "{ " + ", ".join(f"{k} = {toml(v)}" for k, v in value.items()) + " }"
        if isinstance(value, list):
            return "[" + ", ".join(toml(v) for v in value) + "]"
        return f'"{value}"' if isinstance(value, str) else str(value)

    lines = ["[options]"] + [f"{name} = {toml(values)}" for name, values in sets.items()]
    lines += ["[[lanes]]", 'name = "reach"', 'models = ["add"]', f'targets = ["{TARGET}"]',
              'sim = "fvp"', f"options = {toml(['default', *sets])}"]
    path = tmp_path / "reach.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_each_matrix_key_reaches_its_stage(tmp_path):
    matrix_options = [spec.name for spec in specs(RunRequest) if spec.info.matrix]
    sets = {name.replace("_", "-"): {name: SAMPLES[name][1]} for name in matrix_options}
    cells = {cell.options_name: cell
             for cell in expand(load_matrix(write_matrix(tmp_path, sets)), load_catalogue())}
    default = run_request(cells["default"], "runner")
    for name in matrix_options:
        request = run_request(cells[name.replace("_", "-")], "runner")
        expected = SAMPLES[name][2]
        expected = tuple(SAMPLES[name][1]) if name == "build_options" else expected
        expected = SAMPLES[name][1] if name == "vela_flags" else expected
        assert stage_value(name, request) == expected, name
        assert stage_value(name, request) != stage_value(name, default), name


def test_unknown_matrix_key_names_the_known_ones(tmp_path):
    path = write_matrix(tmp_path, {"typo": {"qtoll": 2}})
    with pytest.raises(OrchestratorError) as error:
        load_matrix(path)
    message = error.value.message
    assert "qtoll is not an option" in message and "qtol" in message and "kernel_set" in message
    assert "\n" not in message


def test_bad_matrix_value_is_one_line_at_load(tmp_path):
    with pytest.raises(OrchestratorError, match=r"\[options.bad\] atol abc is not a number"):
        load_matrix(write_matrix(tmp_path, {"bad": {"atol": "abc"}}))


def test_bad_flag_value_is_one_line():
    with pytest.raises(OrchestratorError, match="--timeout abc is not a number"):
        cli_request("--target", TARGET, "--timeout", "abc")


def test_no_model_runs_the_default_model_and_selftest_stays_under_app():
    assert cli_request("--target", TARGET).resolved().app == "runner"
    assert cli_request("--target", TARGET).resolved().model == "add"
    selftest = cli_request("--target", TARGET, "--app", "selftest").resolved()
    assert (selftest.app, selftest.model) == ("selftest", None)
    assert cli_request("--target", TARGET, "--elf", "x.elf").resolved().app == "elf"


def test_matrix_timeout_of_the_wrong_type_is_one_line_naming_the_file(tmp_path):
    path = write_matrix(tmp_path, {})
    path.write_text(path.read_text().replace('sim = "fvp"', 'sim = "fvp"\ntimeout_s = "ten"'))
    with pytest.raises(OrchestratorError) as error:
        load_matrix(path)
    assert str(path) in error.value.message and "timeout_s ten is not a number of seconds" \
        in error.value.message


def test_unknown_matrix_target_names_the_file(tmp_path):
    path = write_matrix(tmp_path, {})
    path.write_text(path.read_text().replace(TARGET, "ethos-u85-129"))
    with pytest.raises(OrchestratorError) as error:
        expand(load_matrix(path), load_catalogue())
    assert str(path) in error.value.message and "unknown target 'ethos-u85-129'" in \
        error.value.message
