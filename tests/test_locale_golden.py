"""Today's en_US field values stay: the default locale is en_US, and adding
locales changes none of its values (tests/data/en_us_fields_golden.json,
written before the locales were added). Each engine gives them."""

from __future__ import annotations

import json
import os

import pytest

import polydat

from test_stdlib_fields import FIELDS

GOLDEN = os.path.join(os.path.dirname(__file__), "data", "en_us_fields_golden.json")


@pytest.mark.parametrize("engine", ["p1", "p2", "p3", "mixed"])
def test_en_us_field_values_do_not_change(engine: str) -> None:
    with open(GOLDEN, encoding="utf-8") as handle:
        golden = json.load(handle)
    kernel = polydat.compile(FIELDS, engine=engine).kernel()
    got: dict[str, list[str]] = {name: [] for name in golden["fields"]}
    for key in golden["keys"]:
        kernel.set_inputs(key)
        for name in got:
            got[name].append(str(kernel.pull(name)))
    assert got == golden["fields"]
