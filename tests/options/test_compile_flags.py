"""`invoke compile` flags reach the compile request through invoke's parser, the option
group and request_for (no torch: resolving names and options is cheap)."""

from __future__ import annotations

from invoke import Collection
from invoke.parser import Parser, ParserContext

import tasks
from orchestrator.aot.api import request_for
from orchestrator.options.compile import CompileTask
from orchestrator.options.fields import from_cli, specs


def compile_task(*argv: str) -> CompileTask:
    task = Collection.from_module(tasks)["compile"]
    context = ParserContext(name="compile", args=task.get_arguments())
    return from_cli(CompileTask, Parser(contexts=[context]).parse_argv(["compile", *argv])[0]
                    .as_kwargs)


def test_defaults_are_the_target_defaults():
    task = compile_task()
    assert (task.model, task.target, task.choices.given()) == ("mv2", "ethos-u55-128", {})
    request = request_for(task.model, task.target, task.choices)
    assert request.options.quantize == "int8" and request.options.delegate


def test_every_compile_flag_reaches_the_request(tmp_path):
    vela_ini = tmp_path / "vela.ini"
    vela_ini.write_text("[System_Config.Mine]\n")
    task = compile_task("--model", "add", "--target", "ethos-u85-128", "--quantize", "a16w8",
                        "--delegate", "--memory-mode", "Sram_Only", "--vela-config",
                        str(vela_ini), "--system-config", "Mine", "--vela-flags",
                        "--optimise Size", "--tosa", "--no-strict")
    options = request_for(task.model, task.target, task.choices).options
    assert (options.target, options.quantize, options.delegate) == ("ethos-u85-128", "a16w8",
                                                                    True)
    assert options.memory_mode == "Sram_Only" and options.system_config == "Mine"
    assert options.vela_config == str(vela_ini) and options.vela_flags == ("--optimise", "Size")
    assert options.tosa and not options.strict_export
    cpu = compile_task("--target", "cortex-m55", "--no-delegate", "--torchvision")
    assert cpu.choices.given() == {"delegate": False, "torchvision": True}
    dsp = compile_task("--model", "add", "--target", "cortex-m55", "--isa", "DSP")
    assert request_for(dsp.model, dsp.target, dsp.choices).options.isa == "dsp"
    flags = {spec.name for spec in specs(CompileTask)}
    assert flags == {"model", "target", "quantize", "delegate", "inputs", "calibration",
                     "system_config", "memory_mode", "vela_config", "vela_flags", "tosa",
                     "strict_export", "torchvision", "random_weights", "toolset", "isa",
                     "bundle"}
    assert compile_task("--toolset", "executorch==1.5.1").toolset == "executorch==1.5.1"
    upstream = compile_task("--model", "mv3", "--target", "ethos-u85-128", "--random-weights")
    request = request_for(upstream.model, upstream.target, upstream.choices)
    assert (request.model.kind, request.model.weights) == ("upstream", "random")


def test_input_and_calibration_files_reach_the_request(tmp_path):
    task = compile_task("--model", "add", "--inputs", str(tmp_path / "in.npy"),
                        "--calibration", str(tmp_path / "cal"))
    assert task.choices.given() == {"inputs": str(tmp_path / "in.npy"),
                                    "calibration": str(tmp_path / "cal")}
