"""Per-node knowledge the catalog cannot express: which constants make sense.

The catalog says a parameter is "a construction-constant f64"; it does not say
that ``unfair_coin``'s ``p`` must lie in [0, 1] or that ``printf``'s format
decides how many arguments follow. Generators (the node-corner programs and
the random :func:`~polydat.testing.programs` strategy) take constants from
here when a node is listed, and from the per-type pools otherwise.

A new library node joins the suites automatically. Add an entry only when its
constants have constraints (the node-corner suite fails with a pointer here
when a generated program does not compile).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..dsl import corerules

__all__ = [
    "NodeOverride",
    "OVERRIDES",
    "CONST_POOLS",
    "override_for",
    "placeholder_count",
]

U64_MAX = 2**64 - 1

CONST_POOLS: dict[str, tuple[Any, ...]] = {
    "u64": (3, 0, 1, 2, 7, 10, 64, 100, 1000, 65536, 2**32, 2**53 + 1, 2**63, U64_MAX),
    "f64": (1.0, 0.0, -1.0, 0.5, 2.5, -0.0, 0.1, 1e6, -3.75, 1e-9, 1e300),
    "str": ("a", "", "hello", "x y", "é", "日本"),
    "bool": (True, False),
}
"""Constants by type when a node has no override; the first is the corner-suite choice."""


def placeholder_count(fmt: str) -> int:
    """The number of placeholders in a printf format, by the core's reading
    (``{{``/``}}`` are braces; a ``{`` opens a placeholder up to the next ``}``)."""
    return corerules.printf_placeholders(fmt)


@dataclass(frozen=True)
class NodeOverride:
    """Constraints for one node.

    ``consts`` lists the allowed values of named constant parameters (the first
    is the one the corner suite uses). ``variadic`` bounds how many items a
    variadic parameter gets (``(min, max)``); ``tail`` lists values allowed only
    as the *last* variadic constant (``mixed_radix``'s 0). ``arity`` derives
    the variadic wire count from the chosen constants (``printf``).
    ``corner_call`` replaces the synthesized call in the node-corner suite
    (variables: ``a b c`` u64 coordinates, ``x y z`` f64 externs, ``s t`` str
    externs, ``e`` a u64 extern without default). ``random`` is False for
    nodes the random generator must not use. ``fallible`` marks nodes that can
    fail at evaluation (assertions are recognized by their category): the
    random generator gives them a non-constant first argument, so that a
    failure is a run-time failure rather than a constant-folding error.
    """

    consts: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    variadic: tuple[int, int] | None = None
    tail: tuple[Any, ...] = ()
    arity: Callable[[Mapping[str, Any]], int] | None = None
    corner_call: str | None = None
    random: bool = True
    fallible: bool = False


_PRINTF_FORMATS = (
    "v={} w={}",
    "{}",
    "{:05}|{:x}",
    "{:.3} and {:8}",
    "{{{}}}",
    "no placeholders",
    "{:b}-{:o}-{:X}",
    "{:08.2}",
)

_STREAMER_SPECS = ("k in 1..4", '{"text": "k in 1..4, j in a,b"}', "x in 0..10 step 3")
"""Comprehensions a ``streamer`` holds (its text, or upstream's JSON payload)."""

_TILE_HOLE_SPECS = (
    "json|value|||", "json|string|||", "json|value|str||", "json|value|bool||", "csv|text|||",
    "text|text||.2|", "text|text||08|", "text|text||x|", "text|text||<6|", "json|value|||r", "text|text|||c",
)
"""``tile_encode`` specs: each encoding and position, a declared type, formats, raw and condition flags."""

_TILE_SKELETONS = (
    '{"ops": [{"Static": "{\\"n\\": "}, {"Hole": {"Wire": 0}}, {"Static": ", \\"s\\": \\""}, '
    '{"Hole": {"Wire": 1}}, {"Static": "\\"}"}]}',
    '{"ops": [{"Branch": {"cond": {"Wire": 0}, "then": [{"Static": "yes "}, {"Hole": {"Wire": 1}}], '
    '"otherwise": [{"Static": "no"}]}}]}',
    '{"ops": [{"Static": "constant"}]}',
)
"""``tile_render`` skeletons (static text, holes, a branch) and the values they read."""

_DATA = Path(__file__).resolve().parent / "data"
_DATA_CSV, _DATA_JSONL, _DATA_LINES = (str(_DATA / name) for name in ("rows.csv", "rows.jsonl", "lines.txt"))
"""Fixture files for the data-file nodes' programs."""

_FFT_OUT = str(Path(tempfile.gettempdir()) / "polydat-testing-fft.jsonl")
"""Where the fft_analyze corner program writes its spectra."""

_WORD_A = "reg_with_lane_f32(reg_splat_i64(a), mod(c, 4), x)"
_WORD_B = "reg_splat_i16(b)"
_VEC_A = "hash_vec(a, mod(c, 6))"
_VEC_B = "xxhash3_vec(b, mod(c, 6))"
_REGISTER_AND_VECTOR_CALLS: dict[str, str] = {
    **{
        f"reg_{op}_{lanes}": f"reg_{op}_{lanes}({_WORD_A}, {_WORD_B})"
        for op in ("add", "sub", "mul")
        for lanes in ("f32", "f64", "i8", "i16", "i32", "i64")
    },
    "reg_dot_f32": f"reg_dot_f32({_WORD_A}, {_WORD_B})",
    "reg_lane_f32": f"reg_lane_f32({_WORD_A}, mod(c, 5))",
    "reg_lane_i16": f"reg_lane_i16({_WORD_A}, mod(c, 9))",
    "reg_lane_i64": f"reg_lane_i64({_WORD_A}, mod(c, 3))",
    "reg_with_lane_f32": f"reg_with_lane_f32({_WORD_B}, mod(c, 5), x)",
    "reg_shuffle_bytes": f"reg_shuffle_bytes({_WORD_A}, 15, 0, 14, 1, 13, 2, 12, 3, 11, 4, 10, 5, 9, 6, 8, 7)",
    "reg_gather_f32": "reg_gather_f32(hash_vec(a, mod(b, 9)), mod(c, 8))",
    "vec_to_reg_f32": "vec_to_reg_f32(hash_vec(a, mod(b, 6)))",
    "reg_to_vec_f32": f"reg_to_vec_f32({_WORD_A})",
    "hash_vec": "hash_vec(a, mod(b, 40))",
    "xxhash3_vec": "xxhash3_vec(a, mod(b, 40))",
    "vec_add": f"vec_add({_VEC_A}, {_VEC_B})",
    "vec_dot": f"vec_dot({_VEC_A}, {_VEC_B})",
    "vec_cosine": f"vec_cosine({_VEC_A}, {_VEC_B})",
    "vec_l2": f"vec_l2({_VEC_A}, xxhash3_vec(b, mod(b, 6)))",
    "vec_scale": f"vec_scale({_VEC_A}, x)",
    "vec_norm": f"vec_norm({_VEC_A})",
    "lid_mle": f"lid_mle({_VEC_A}, x)",
}
"""Corner calls of the register and vector nodes (their wires are byte strings no corner variable holds)."""

_PARTITION = (
    'partition_at(partitions(fixed_values_str(a, "2%,10%,*", "linear:4", "~50%,1,*", "0..1%"), 1000), mod(b, 3))'
)
"""A partition for the partition nodes' corner programs (some indexes fail: past a one-partition list)."""

OVERRIDES: dict[str, NodeOverride] = {
    # arithmetic
    "mod": NodeOverride(consts={"modulus": (10, 7, 1, 3, 1000, 2**32 + 1, 2**63, U64_MAX, 0)}, fallible=True),
    "div": NodeOverride(consts={"divisor": (10, 7, 1, 3, 1000, 2**32 + 1, 2**63, U64_MAX, 0)}, fallible=True),
    "mod_wire": NodeOverride(fallible=True),
    "div_wire": NodeOverride(fallible=True),
    "clamp": NodeOverride(consts={"min": (10, 0, 100), "max": (1000, 2**32, U64_MAX)}),
    "mixed_radix": NodeOverride(
        consts={"radixes": (10, 7, 2, 3, 16, 100, 1000, 2**32)}, variadic=(1, 4), tail=(0,),
    ),
    "sum": NodeOverride(variadic=(0, 4)),
    "product": NodeOverride(variadic=(0, 4)),
    "min": NodeOverride(variadic=(0, 4)),
    "max": NodeOverride(variadic=(0, 4)),
    # lerp family: ordered bounds
    "clamp_f64": NodeOverride(consts={"min": (-1.0, -0.0, 0.0, -1e6), "max": (0.5, 1.0, 1e6)}),
    "quantize": NodeOverride(consts={"step": (1.0, 0.25, 0.1, 10.0, 3.0)}),
    # probability and strings
    "unfair_coin": NodeOverride(consts={"p": (0.3, 0.0, 0.1, 0.5, 0.9, 1.0)}),
    "one_of": NodeOverride(consts={"values": ("red", "green", "blue", "é", "")}, variadic=(1, 4)),
    "combinations": NodeOverride(consts={"pattern": ("0-9;A-Z", "a-c;-;0-9", "x", "A-Z;A-Z;0-9;0-9", "é-ë;日")}),
    "printf": NodeOverride(
        consts={"format": _PRINTF_FORMATS},
        arity=lambda c: placeholder_count(str(c.get("format", ""))),
        fallible=True,
        corner_call='printf("a={:05} x={:.3} s={} e={}", a, x, s, e)',
    ),
    # the nodes behind producers and tiles: specs they read
    "streamer": NodeOverride(consts={"spec": _STREAMER_SPECS}),
    "tile_encode": NodeOverride(consts={"spec": _TILE_HOLE_SPECS}),
    "tile_render": NodeOverride(
        consts={"spec": _TILE_SKELETONS},
        arity=lambda c: 1 + max((int(i) for i in re.findall(r'"Wire": *(\d+)', str(c.get("spec", "")))), default=-1),
    ),
    # formatting sizes stay small
    "format_u64": NodeOverride(consts={"radix": (10, 16, 8, 2, 3)}),
    "format_f64": NodeOverride(consts={"precision": (2, 0, 5, 17)}),
    "zero_pad_u64": NodeOverride(consts={"width": (10, 0, 1, 25)}),
    # distributions: parameters inside their domains
    "dist_normal": NodeOverride(consts={"mean": (0.0, -3.5, 100.0), "stddev": (1.0, 0.0, 0.25, 10.0)}),
    "dist_exponential": NodeOverride(consts={"rate": (1.0, 0.5, 3.0)}),
    "dist_uniform": NodeOverride(consts={"min": (-1.0, 0.0, 10.0), "max": (10.0, 100.0, 1e6)}),
    "dist_pareto": NodeOverride(consts={"scale": (1.0, 2.5), "shape": (1.0, 0.5, 3.0)}),
    "dist_zipf": NodeOverride(consts={"n": (100, 1, 2, 10, 1000, 100000), "exponent": (1.0, 0.5, 1.5, 2.0)}),
    # permutations, weighted choice and exact counts
    "cycle_walk": NodeOverride(consts={"range": (100, 1, 2, 1000, 2**32, U64_MAX)}),
    # shuffle: maximal-length feedback polynomials (7, 8, 10 bits) or none, so every walk ends quickly
    "shuffle": NodeOverride(consts={"feedback": (0x60, 0xB8, 0x240, 0), "size": (100, 1, 2, 1000, 0, 50)}),
    "n_of": NodeOverride(consts={"n": (1, 0), "m": (10, 1, 7, 100)}),
    "chance": NodeOverride(consts={"p": (0.3, 0.0, 0.5, 1.0)}),
    "blend": NodeOverride(consts={"mix": (0.3, 0.0, 0.5, 1.0)}),
    "one_of_weighted": NodeOverride(consts={"spec": ("red:60,blue:30,green:10", "only:1", "a:1;b:2;é:3")}),
    "weighted_strings": NodeOverride(consts={"spec": ("alpha:0.3;beta:0.5;gamma:0.2", "x:1", "a:1,é:0.1")}),
    "weighted_u64": NodeOverride(consts={"spec": ("10:0.5;20:0.3;30:0.2", "42:1", "0:1,18446744073709551615:2")}),
    "weighted_pick": NodeOverride(consts={"spec": ("10:0.5;20:0.3;30:0.2", "42:1", "0:1,7:2")}),
    "histribution": NodeOverride(consts={"spec": ("50 25 13 12", "234:50 33:25 17:13 3:12", "1")}),
    "alias_sample": NodeOverride(consts={"weights": (1.0, 2.0, 0.5, 3.0)}, variadic=(1, 4)),
    "discretize": NodeOverride(consts={"range": (100.0, 1.0, 0.5, 1e6), "buckets": (10, 0, 1, 7)}),
    # the remaining distributions
    "dist_lognormal": NodeOverride(consts={"mean": (0.0, 1.0, -1.0), "stddev": (1.0, 0.5, 0.0)}),
    "dist_weibull": NodeOverride(consts={"shape": (2.0, 1.0, 0.5), "scale": (1.0, 3.0)}),
    "dist_cauchy": NodeOverride(consts={"location": (0.0, 5.0), "scale": (1.0, 0.5)}),
    "dist_laplace": NodeOverride(consts={"location": (0.0, 5.0), "scale": (1.0, 2.0)}),
    "dist_beta": NodeOverride(consts={"alpha": (2.0, 0.5, 1.0), "beta": (5.0, 2.0, 1.0)}),
    "dist_gamma": NodeOverride(consts={"shape": (2.0, 0.5, 5.0), "scale": (1.0, 2.0)}),
    "dist_poisson": NodeOverride(consts={"lambda": (5.0, 0.5, 100.0)}),
    "dist_binomial": NodeOverride(consts={"trials": (20, 1, 100), "prob": (0.5, 0.1, 0.9)}),
    "dist_geometric": NodeOverride(consts={"prob": (0.5, 0.1, 0.9)}),
    "dist_empirical": NodeOverride(consts={"spec": ("1.0 2.5 7", "0,10", "-1;0;1;2")}),
    "lut_sample": NodeOverride(consts={"values": ("0 1 4 9", "10 0", "1,2,3")}),
    # context: a variable every environment sets
    "env": NodeOverride(consts={"name": ("PATH",)}),
    "fixed_values_u64": NodeOverride(variadic=(1, 4)),
    "fixed_values_f64": NodeOverride(variadic=(1, 4)),
    "fixed_values_str": NodeOverride(variadic=(1, 4)),
    # partitions: specs that resolve (and one empty range, which fails), read through partition_at
    **{
        name: NodeOverride(corner_call=call.replace("P", _PARTITION), fallible=name == "partitions")
        for name, call in {
            "partitions": 'partitions(fixed_values_str(a, "2%,10%,*", "linear:4", "90%,*/10", "0..0%", "x"), 1000)',
            "partition_count": 'partition_count(partitions(fixed_values_str(a, "2%,10%,*", "linear:4", "1%x5,*"), 1000))',
            "partition_at": "P",
            "cardinality": "cardinality(P)",
            "start_of": "start_of(P)",
            "end_of": "end_of(P)",
            "idx_of": "idx_of(P)",
            "count_of": "count_of(P)",
            "mod_in": "mod_in(c, P)",
            "clamp_in": "clamp_in(c, P)",
            "at": "at(P, mod(c, 300))",
            "random_in": "random_in(P, c)",
            "subdivide": "subdivide(P, mod(c, 5))",
        }.items()
    },
    # data files: the small fixtures shipped with this package
    "csv_field": NodeOverride(consts={"filename": (_DATA_CSV,), "column": ("name", "note", "1", "7")}),
    "csv_row": NodeOverride(consts={"filename": (_DATA_CSV,)}),
    "csv_row_count": NodeOverride(consts={"filename": (_DATA_CSV,)}),
    "jsonl_field": NodeOverride(consts={"filename": (_DATA_JSONL,), "path": ("name", "user.id", "user.id.1", "x")}),
    "jsonl_row": NodeOverride(consts={"filename": (_DATA_JSONL,)}),
    "jsonl_row_count": NodeOverride(consts={"filename": (_DATA_JSONL,)}),
    "file_line_at": NodeOverride(consts={"filename": (_DATA_LINES,)}),
    # dispatch, unwrapping and stateful nodes
    "pick": NodeOverride(corner_call="pick(coin_flip(a, 0.5), coin_flip(b, 0.5), s, t)", random=False),
    "exactly_one_value": NodeOverride(corner_call="exactly_one_value(str_to_json(s))"),
    "dynamic_weighted_select": NodeOverride(
        corner_call='dynamic_weighted_select(a, fixed_values_str(b, "a:1;b:2", "x:1", "", "bad", "é:0.5,ü:0.5"))',
    ),
    "hashed_line_to_string": NodeOverride(consts={"source": ("alpha\nbeta\n\ngamma", "one line", "é")}),
    "hashed_lorem_extract": NodeOverride(consts={"min_len": (10, 0, 50, 1000), "max_len": (40, 0, 100, 2000)}),
    "random_bytes": NodeOverride(consts={"size": (8, 0, 1, 20)}),
    "is_stable": NodeOverride(consts={"margin": (0.05, 0.5, 0.0), "min_samples": (8, 1, 4), "horizon": (32, 1, 8)}),
    "fft_analyze": NodeOverride(consts={"filename": (_FFT_OUT,), "window_size": (4, 2, 16)}, random=False),
    # registers and f32 vectors (byte strings): built from splats and hashed vectors
    **{name: NodeOverride(corner_call=call, random=False) for name, call in _REGISTER_AND_VECTOR_CALLS.items()},
    # noise: octave counts inside 1..=64
    "fractal_noise_1d": NodeOverride(consts={"frequency": (0.01, 1.0, 0.5), "octaves": (4, 1, 2, 64)}),
    "fractal_noise_2d": NodeOverride(consts={"frequency": (0.01, 1.0, 0.5), "octaves": (4, 1, 3, 64)}),
    # byte buffers: small sizes
    "bytes_from_hash": NodeOverride(consts={"size": (8, 0, 1, 20, 100)}),
    "byte_image_extract": NodeOverride(consts={"image_size": (1000, 16, 0), "slice_size": (10, 0, 100)}),
    "char_image_extract": NodeOverride(
        consts={"charset": ("A-Z", "a-z0-9", "é-ë"), "image_size": (100, 10, 0), "slice_size": (5, 0, 200)},
    ),
    "byte_slice": NodeOverride(
        consts={"offset": (0, 2, 100), "length": (8, 0, 3, 1000)}, corner_call="byte_slice(bytes_from_hash(a, 20), 2, 5)",
    ),
    "to_hex": NodeOverride(corner_call="to_hex(bytes_from_hash(a, 7))"),
    "sha256": NodeOverride(corner_call="to_hex(sha256(bytes_from_hash(a, 7)))"),
    "md5": NodeOverride(corner_call="to_hex(md5(u64_to_bytes(b)))"),
    "to_base64": NodeOverride(corner_call="to_base64(bytes_from_hash(c, 5))"),
    "to_base32": NodeOverride(corner_call="to_base32(bytes_from_hash(c, 6))"),
    "json_object": NodeOverride(corner_call='json_object(json_with("k", a), json_with("s", s), json_with("x", x))'),
    "json_merge": NodeOverride(corner_call='json_merge(json_with("a", a), json_with("b", x))'),
    "json_to_str": NodeOverride(corner_call="json_to_str(json_array(a, x, s))"),
    "json_to_str_pretty": NodeOverride(corner_call='json_to_str_pretty(json_with("k", t))'),
    "json_field": NodeOverride(corner_call='json_field(json_with("k", s), "k")'),
    "random_vector": NodeOverride(corner_call="random_vector(a, mod(b, 40), -1.5, 2.0)", random=False),
    "array_at": NodeOverride(corner_call='array_at(random_vector(c, mod(b, 5)), a)'),
    "normalize_vector": NodeOverride(corner_call="normalize_vector(random_vector(a, mod(b, 6)))"),
    "body_column_i32": NodeOverride(
        corner_call='body_column_i32(json_array(json_with("k", a), json_with("k", s), json_with("j", b)), "k")',
    ),
    # dates, regexes and text
    "format_datetime": NodeOverride(consts={"format": ("%Y-%m-%d", "%H:%M:%S.%f", "%a %b %d %Y %j", "x%%y %s")}),
    "regex_replace": NodeOverride(consts={"pattern": ("[a-z]+", r"(\w+)@", "^", r"\d"), "replacement": ("X", "$1", "")}),
    "regex_match": NodeOverride(consts={"pattern": ("[a-z]+", "^$", r"\d", "é")}),
    "regex_extract": NodeOverride(consts={"pattern": ("([a-z]+)", r"\d+", "^(.)")}),
    "matches": NodeOverride(consts={"pattern": (".*", "^h", "[0-9]")}),
    "lorem_sentence": NodeOverride(consts={"min_words": (4, 0, 1), "max_words": (12, 20)}),
    "lorem_paragraph": NodeOverride(consts={"min_sentences": (3, 0, 1), "max_sentences": (6, 8)}),
    "inspect": NodeOverride(random=False),
    "char_buf": NodeOverride(
        consts={"charset": ("A-Za-z0-9", "", "é-ë")}, corner_call='char_buf(a, "a-f0-9", mod(b, 40))', random=False,
    ),
    "random_string": NodeOverride(consts={"charset": ("A-Za-z0-9", "", "é-ë"), "length": (8, 0, 20)}),
    # assertions
    "in_range": NodeOverride(consts={"lo": (0, 1, 10, 1000), "hi": (1000, 2**32, U64_MAX)}),
    "is_one_of": NodeOverride(consts={"allowed": (0, 1, 2, 3, 7, 100, 2**63)}, variadic=(1, 4)),
    "required": NodeOverride(corner_call='required(e, "e")'),
    "default_or": NodeOverride(corner_call="default_or(e, a)"),
}
"""Per-node constraints, by node name."""


def override_for(name: str) -> NodeOverride:
    """The override for node ``name`` (an empty one when it has none)."""
    return OVERRIDES.get(name, _EMPTY)


_EMPTY = NodeOverride()
