"""A data file's loader refuses a key its layout does not name, in one sentence naming the
file and the key (models.toml: a misspelt key was read as its default before)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from orchestrator.aot.models.catalogue import MODELS_LAYOUT, MODELS_PATH
from orchestrator.foundation.errors import OrchestratorError
from orchestrator.foundation.tomlfile import ANY, EACH, check_keys, load_data, load_toml


def test_the_shipped_models_toml_fits_its_layout() -> None:
    assert load_data(MODELS_PATH, MODELS_LAYOUT) == load_toml(MODELS_PATH)


def test_a_misspelt_key_in_models_toml_is_refused_naming_file_and_key(tmp_path: Path) -> None:
    text = MODELS_PATH.read_text()
    assert "\nsummary = " in text
    misspelt = tmp_path / "models.toml"
    misspelt.write_text(text.replace("\nsummary = ", "\nsumary = ", 1))
    with pytest.raises(OrchestratorError) as caught:
        load_data(misspelt, MODELS_LAYOUT)
    message = caught.value.message
    assert message.startswith("models.toml: unknown key 'sumary' in table [")
    assert "summary" in message and message.count(".") >= 1
    assert "orchestrator/data/models.toml" in caught.value.next_step


def test_keys_are_checked_at_every_depth_and_in_arrays_of_tables() -> None:
    layout = {"rule": {"seed": ANY}, "rows": {"name": ANY}, "names": {EACH: {"url": ANY}},
              "free": ANY}
    check_keys({"rule": {"seed": 1}, "rows": [{"name": "a"}], "names": {"x": {"url": "u"}},
                "free": {"anything": {"goes": 1}}}, layout, "f.toml")
    for bad, key in (({"rule": {"sed": 1}}, "'sed' in table [rule]"),
                     ({"rows": [{"name": "a"}, {"nmae": "b"}]}, "'nmae' in table [rows[1]]"),
                     ({"names": {"x": {"ulr": "u"}}}, "'ulr' in table [names.x]"),
                     ({"extra": 1}, "'extra' at the top level")):
        with pytest.raises(OrchestratorError, match=re.escape(f"f.toml: unknown key {key}")):
            check_keys(bad, layout, "f.toml")
