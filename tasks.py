"""invoke tasks: parse flags, call one orchestrator function. Nothing else lives here."""

from __future__ import annotations

from invoke import task

from orchestrator.cli import run


@task(help={"json": "print the catalogue as JSON instead of a table"})
def targets(c, json=False):
    """List every target: CPU, NPU and MACs, platform, simulators, Vela defaults."""
    run("orchestrator.targets.report:targets_command", json=json)


@task(
    help={
        "target": "fail only for what this target needs (default: anything missing fails)",
        "json": "print the checks as JSON",
    }
)
def doctor(c, target=None, json=False):
    """Check everything the tool needs and print the command that fixes each problem."""
    run("orchestrator.doctor:doctor_command", target=target, json=json)


@task(
    help={
        "logfile": "a saved console log: upstream runner / run_fvp.sh / FVP / Zephyr, or a "
        "transcript.log of this tool",
        "json": "print the RunResult document as JSON",
        "etdump_dir": "where decoded ETDump blocks go (default: <logfile>.etdump/)",
        "target": "target name, to label PMU counters when the log printed no event list",
    },
    positional=["logfile"],
)
def parse(c, logfile, json=False, etdump_dir=None, target=None):
    """Turn any runner log into a RunResult: status, cause, next step, numbers."""
    run(
        "orchestrator.parse.command:parse_command",
        logfile=logfile,
        json=json,
        etdump_dir=etdump_dir,
        target=target,
    )


@task(
    help={
        "target": "catalogue target (invoke targets), e.g. cortex-m55 or ethos-u55-128",
        "app": "firmware app under firmware/apps/ (default: selftest)",
        "build_type": "release or debug",
        "option": "NAME=value build option, repeatable (e.g. EOR_STACK_SIZE=0x10000)",
        "json": "print the build manifest as JSON",
    },
    iterable=["option"],
)
def build(c, target, app="selftest", build_type="release", option=None, json=False):
    """Configure if needed, build incrementally, print ELF sections and memory-region use."""
    run("orchestrator.build.command:build_command", target=target, app=app,
        build_type=build_type, options=option, json=json)


@task(
    help={
        "target": "catalogue target (invoke targets), e.g. cortex-m55",
        "app": "firmware app to run: selftest (default), runner, npuselftest (NPU targets "
               "on QEMU: a Vela stream on the functional NPU model)",
        "sim": "qemu, fvp or a simulator name (default: the target's first simulator)",
        "timeout": "host deadline in seconds (default 60)",
        "idle_timeout": "stop a simulator that prints nothing for this many seconds (default 20)",
        "build_type": "release or debug",
        "option": "NAME=value build option, repeatable",
        "json": "print the RunResult document as JSON",
        "model": "model to compile and run with the ExecuTorch runner (invoke compile --help); "
                 "implies --app runner",
        "memory_mode": "runner: Ethos-U memory mode (default: the target's)",
        "kernel_set": "runner: portable kernels linked (all, common: see "
                      "orchestrator/data/runner.toml)",
        "method_pool": "runner: method pool bytes (e.g. 32M; default from runner.toml)",
        "temp_pool": "runner: temp pool / Ethos-U scratch bytes",
        "fast_scratch": "runner: Ethos-U fast scratch bytes (Dedicated_Sram)",
        "quantize": "runner: int8, a16w8 or none (default: the compile stage's)",
        "atol": "runner: absolute tolerance for float outputs (default 1e-3)",
        "rtol": "runner: relative tolerance for float outputs (default 1e-3)",
        "qtol": "runner: extra tolerance in quantization steps vs a quantized reference "
                "(default 1)",
        "min_snr": "runner: also require this SNR in dB",
        "top1": "runner: also require the top-1 class to match the reference",
        "fast": "runner on an FVP: Ethos-U --fast (no timing, no PMU cycles)",
        "elf": "run this upstream-built arm_executor_runner ELF on the target's FVP instead "
               "of building (its console is parsed like invoke parse)",
        "data": "with --elf: FILE@ADDRESS loaded into target memory (FVP --data), repeatable",
    },
    iterable=["option", "data"],
    name="run",
    positional=[],
    auto_shortflags=False,
)
def run_(c, target, app=None, sim=None, timeout=60.0, idle_timeout=20.0,
         build_type="release", option=None, json=False, model=None, memory_mode=None,
         kernel_set=None, method_pool=None, temp_pool=None, fast_scratch=None, quantize=None,
         atol=None, rtol=None, qtol=None, min_snr=None, top1=False, fast=False, elf=None,
         data=None):
    """Build, simulate and parse: prints a result table, writes scratch/runs/<id>/."""
    run("orchestrator.run:run_command", target=target, app=app, sim=sim, timeout=timeout,
        idle_timeout=idle_timeout, build_type=build_type, options=option, json=json,
        model=model, memory_mode=memory_mode, kernel_set=kernel_set, method_pool=method_pool,
        temp_pool=temp_pool, fast_scratch=fast_scratch, quantize=quantize, atol=atol,
        rtol=rtol, qtol=qtol, min_snr=min_snr, top1=top1 or None, fast=fast or None, elf=elf,
        data=data or None)


@task(
    help={
        "model": "built-in name (add, softmax, convnet, mv2), a .py file with ModelUnderTest "
                 "and ModelInputs, a torch.save'd .pt model, or module:function",
        "target": "target name (invoke targets lists them)",
        "quantize": "int8 (default), a16w8 where the target supports int16, or none",
        "delegate": "delegate to the NPU (default for Ethos-U targets; refused without an NPU)",
        "no_delegate": "run every op on the CPU (default for Cortex-M targets)",
        "inputs": "input tensors: .pt (torch.save of a tuple) or .npy",
        "calibration": "calibration data for quantization: a .pt/.npy file or a directory",
        "system_config": "Vela system config (default: the target's, from the catalogue)",
        "memory_mode": "Vela memory mode (default: the target's, from the catalogue)",
        "vela_config": "your own vela.ini",
        "vela_flags": "extra Vela flags, e.g. '--optimise Size'",
        "tosa": "also keep the TOSA flatbuffer(s)",
        "strict": "strict torch.export (default); --no-strict for non-strict export",
        "torchvision": "mv2: use torchvision's MobileNetV2 (needs torchvision installed)",
        "json": "print the summary as JSON",
    },
    auto_shortflags=False,
)
def compile(c, model="mv2", target="ethos-u55-128", quantize="int8", delegate=False,
            no_delegate=False, inputs=None, calibration=None, system_config=None,
            memory_mode=None, vela_config=None, vela_flags=None, tosa=False, strict=True,
            torchvision=False, json=False):
    """Compile a PyTorch model to a .pte with Vela and delegation reports (cached)."""
    run("orchestrator.aot.command:compile_command", model=model, target=target,
        quantize=quantize, delegate=True if delegate else (False if no_delegate else None),
        inputs=inputs, calibration=calibration, system_config=system_config,
        memory_mode=memory_mode, vela_config=vela_config, vela_flags=vela_flags, tosa=tosa,
        strict_export=strict, torchvision=torchvision, json=json)


@task(
    help={
        "matrix": "matrix TOML file (examples/regress/qemu.toml runs anywhere with QEMU)",
        "jobs": "cells simulated in parallel (default: number of cores)",
        "shard": "run only shard i/N of the cells (deterministic, balanced; for CI job matrices)",
        "filter": "comma-separated globs on model, target, lane or cell key (e.g. 'mv2,*u85*')",
        "rerun_failed": "run only the cells that failed in the last report",
        "update_baselines": "record this run's metrics as the baselines and print the diff",
        "baselines": "baselines JSON (default: the matrix's `baselines` key, else "
                     "<matrix>.baselines.json)",
        "require": "simulator kinds that must be present (fvp, qemu): their absence fails cells",
        "json": "print the report document as JSON",
        "quiet": "print nothing but errors (reports are still written)",
    },
)
def regress(c, matrix=None, jobs=None, shard=None, filter=None, rerun_failed=False,
            update_baselines=False, baselines=None, require=None, json=False, quiet=False):
    """Run a regression matrix; reports go to scratch/runs/<run id>/, exit 1 if a cell failed."""
    run("orchestrator.regress.command:regress_command", matrix=matrix, jobs=jobs, shard=shard,
        filter=filter, rerun_failed=rerun_failed, update_baselines=update_baselines,
        baselines=baselines, require=require, json=json, quiet=quiet)


@task(
    help={
        "reports": "comma-separated report.json files (or run directories) of the shards",
        "out": "directory for the merged reports (default: scratch/runs/<new run id>/)",
        "json": "print the merged document as JSON",
        "quiet": "print nothing but errors",
    },
)
def regress_merge(c, reports=None, out=None, json=False, quiet=False):
    """Merge `invoke regress --shard i/N` reports into one report and one verdict."""
    run("orchestrator.regress.command:merge_command", reports=reports, out=out, json=json,
        quiet=quiet)


@task(
    help={
        "only": "what to set up: toolchain, fvp, sources, or artifact/source names "
                "(comma-separated; default: everything)",
        "targets": "set up only what these targets need (comma-separated target names)",
        "force": "reinstall: bare --force = everything selected, or --force=NAME[,NAME]",
        "offline": "use only the download cache, user archives and local sources",
        "mirror": "base URL serving the pinned file names (env ETHOSU_ORCH_MIRROR)",
        "cache_dir": "shared download cache (env ETHOSU_ORCH_DOWNLOAD_CACHE; "
                     "default scratch/downloads)",
        "archive": "NAME=FILE: use this local archive for an artifact (repeatable)",
        "source": "NAME=DIR (used in place) or NAME=REPO[@REV] (exported into scratch/src); "
                  "repeatable; env ETHOSU_ORCH_SRC_<NAME>",
        "fvp_dir": "NAME=DIR: FVPs installed elsewhere (e.g. FVPs-on-Mac), used in place",
        "accept_eula": "accept Arm's FVP EULA (or ARM_FVP_INSTALL_I_AGREE_TO_THE_CONTAINED_EULA"
                       "=True)",
        "toolchain_provider": "auto (system arm-none-eabi-gcc if new enough, else download), "
                              "system, or arm",
        "toolchain_dir": "bin folder of an arm-none-eabi toolchain to adopt",
        "allow_dirty": "accept user source directories with uncommitted changes",
        "allow_unpinned": "accept sources at other revisions: bare = all, or =NAME[,NAME]",
        "config": "TOML file with the same settings (env ETHOSU_ORCH_SETUP_CONFIG)",
        "json": "print the lock entries of the selected items as JSON",
    },
    optional=["force", "allow_unpinned"],
    iterable=["archive", "source", "fvp_dir"],
    auto_shortflags=False,
)
def setup(c, only=None, targets=None, force=None, offline=False, mirror=None, cache_dir=None,
          archive=None, source=None, fvp_dir=None, accept_eula=False, toolchain_provider=None,
          toolchain_dir=None, allow_dirty=False, allow_unpinned=None, config=None, json=False):
    """Install the pinned toolchain, Corstone FVPs and upstream sources (verified, cached)."""
    run("orchestrator.setup.command:setup_command", only=only, targets=targets, force=force,
        offline=offline, mirror=mirror, cache_dir=cache_dir, archive=archive or [],
        source=source or [], fvp_dir=fvp_dir or [], accept_eula=accept_eula,
        toolchain_provider=toolchain_provider, toolchain_dir=toolchain_dir,
        allow_dirty=allow_dirty, allow_unpinned=allow_unpinned, config=config, json=json)


@task(help={"model": "built-in model name, .py/.pt file or module:function",
            "target": "an ethos-u55-* or ethos-u65-* target",
            "json": "print the report as JSON (top-level \"exact\": true|false)"})
def verify(c, model="mv2", target="ethos-u55-128", json=False):
    """NPU partitions on the functional NPU model vs the TOSA reference; exit 0 only if exact."""
    run("orchestrator.vnpu.command:verify_command", model=model, target=target, json=json)
