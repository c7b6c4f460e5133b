"""Shared programs of the column, Arrow and writer tests."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT / "tests"))  # legacy_text, test_cli helpers

ALL_TYPES = DATA / "all_types.polydat"
ALL_TYPES_SETS = ["--set", "single=0.1", "--set", "wide=1234567"]
ALL_TYPES_INPUTS = {"single": 0.10000000149011612, "wide": 1234567.0}  # f32 values, exactly
EXAMPLE = ROOT / "examples" / "users.polydat"

NULLS = """
input cycle: u64
extern tag: str
extern n: u64
extern x: f64
extern b: bool
h := hash(cycle)
label := default_or(tag, "untagged")
maybe_tag := tag
maybe_n := n
maybe_x := x
maybe_b := b
"""
"""Every output of a type can be absent: ``inputs={"tag": None, ...}``."""
