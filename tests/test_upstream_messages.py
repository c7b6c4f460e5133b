"""Failure texts that carry upstream polydat's own words.

A program ported from upstream that fails here should fail with the text its
author already knows (this project may add a location or a hint around it).
"""

from __future__ import annotations

import pytest

import polydat


@pytest.mark.parametrize("p", ["1.5", "-0.25"])
def test_unfair_coin_with_p_outside_0_1_says_upstreams_words(p: str) -> None:
    with pytest.raises(polydat.PolydatError) as caught:
        polydat.compile(f"input cycle: u64\nx := unfair_coin(cycle, {p})\n")
    message = str(caught.value)
    assert f"unfair_coin probability p must be in [0.0, 1.0], got {p}" in message
    assert "2:6" in message, "the error points at the call"
