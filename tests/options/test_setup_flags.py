"""`invoke setup` flags reach SetupOptions through invoke's parser and the option group."""

from __future__ import annotations

from pathlib import Path

from invoke import Collection
from invoke.parser import Parser, ParserContext

import tasks
from orchestrator.options.fields import from_cli, specs
from orchestrator.options.setup import SetupFlags
from orchestrator.setup.options import build_options


def setup_flags(*argv: str) -> SetupFlags:
    task = Collection.from_module(tasks)["setup"]
    context = ParserContext(name="setup", args=task.get_arguments())
    return from_cli(SetupFlags, Parser(contexts=[context]).parse_argv(["setup", *argv])[0]
                    .as_kwargs)


def test_every_setup_flag_reaches_setup_options(tmp_path):
    flags = setup_flags("--only", "toolchain,fvp", "--targets", "cortex-m55", "--models",
                        "mv3,ic3", "--toolsets", "et-1.5.1,vela-5.2.0", "--force",
                        "--offline", "--mirror", "http://127.0.0.1:1/", "--cache-dir",
                        str(tmp_path), "--archive", "a=/x.tgz", "--source", "executorch=/et",
                        "--fvp-dir", "fvp-corstone-300=/fvp", "--accept-eula",
                        "--toolchain-provider", "system", "--toolchain-dir", "/tc/bin",
                        "--allow-dirty", "--allow-unpinned", "executorch")
    options = build_options(flags, environ={})
    assert options.only == ("toolchain", "fvp") and options.targets == ("cortex-m55",)
    assert options.models == ("mv3", "ic3")
    assert options.toolsets == ("et-1.5.1", "vela-5.2.0")
    assert options.forced("anything") and options.offline and options.accept_eula
    assert options.mirror == "http://127.0.0.1:1/" and options.cache_dir == tmp_path.resolve()
    assert options.archives == {"a": Path("/x.tgz")}
    assert options.sources["executorch"].path == Path("/et")
    assert options.fvp_dirs == {"fvp-corstone-300": Path("/fvp")}
    assert options.toolchain_provider == "system"
    assert options.toolchain_dir == Path("/tc/bin") and options.allow_dirty
    assert options.unpinned_ok("executorch") and not options.unpinned_ok("cmsis-nn")
    given = {"only", "targets", "models", "toolsets", "force", "offline", "mirror", "cache_dir",
             "archive", "source", "fvp_dir", "accept_eula", "toolchain_provider", "toolchain_dir",
             "allow_dirty", "allow_unpinned"}
    assert given | {"config"} == {spec.name for spec in specs(SetupFlags)}


def test_config_flag_reaches_the_config_reader(tmp_path):
    config = tmp_path / "setup.toml"
    config.write_text('mirror = "http://config/"\n')
    assert build_options(setup_flags("--config", str(config)), environ={}).mirror == \
        "http://config/"
