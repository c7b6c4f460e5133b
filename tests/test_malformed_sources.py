"""Bad input never crashes: several hundred malformed sources, through the whole
pipeline (frontend and Rust core), each compile or raise CompileError — nothing else."""

from __future__ import annotations

import random

import polydat
from polydat import CompileError

SEEDS = [
    "input cycle: u64\nhashed := hash(cycle)\nuser_id := mod(hashed, 1000000)\nbucket := mod(hashed, 64)\n",
    'input cycle: u64\nextern region: str = "us"\nid := mod_wire(hash(cycle), 7)\nkey := "{region}/{id}"\n',
    "input (a: u64, b: u64)\n(x, y, z) := mixed_radix(a, 10, 10, 0)\nf := to_f64(x) * 0.5 + sin(to_f64(b))\n"
    "g := if f > 1.0 { f } else { -f }\nh := round_to_u64(g) as str\n",
    "sq(v: u64) -> (out: u64) := { out := v * v }\ninput cycle: u64\ns := sq(cycle) % 9409\nq := 2.0 ** to_f64(s)\n"
    "c := in_range(s, 0, 100000)\nw := number_to_words(c)\n",
    "input cycle: u64\nconst base := 42\nvolatile t := hash(cycle)\nu := printf(\"{:05}-{}\", base, t)\n"
    "v := select_str(u64_lt(cycle, 3), u, \"x\")\n",
]

NOISE = list("(){}[]:=,.+-*/%!<>&|^\"'#{}\\ \n") + ["0x", "1e", "as", "if", "else", "input", "const", "::", ":=", "**"]


def mutations(rng: random.Random, text: str):
    tokens = text.replace("\n", " \n ").split(" ")
    for _ in range(16):
        kind = rng.randrange(6)
        if kind == 0:
            yield text[: rng.randrange(len(text))]
        elif kind == 1:
            i = rng.randrange(len(tokens))
            yield " ".join(tokens[:i] + tokens[i + 1 :])
        elif kind == 2:
            i = rng.randrange(len(tokens))
            yield " ".join(tokens[:i] + [tokens[i], tokens[i]] + tokens[i + 1 :])
        elif kind == 3:
            i = rng.randrange(len(text))
            yield text[:i] + rng.choice(NOISE) + text[i:]
        elif kind == 4:
            i, j = sorted(rng.sample(range(len(tokens)), 2))
            t = tokens[:]
            t[i], t[j] = t[j], t[i]
            yield " ".join(t)
        else:
            yield "".join(chr(rng.randrange(1, 0x2FF)) for _ in range(rng.randrange(1, 40)))


def test_malformed_sources_raise_compile_error_only():
    rng = random.Random(20261129)
    tried = failed = 0
    for seed in SEEDS:
        polydat.compile(seed)  # every seed itself is valid
        for _ in range(6):
            for source in mutations(rng, seed):
                tried += 1
                try:
                    polydat.compile(source)
                except CompileError as err:
                    failed += 1
                    assert str(err).strip(), source
                    assert err.line >= 0 and err.col >= 0
    assert tried >= 400
    assert failed >= tried // 3, "mutations should mostly be invalid"


def test_pathological_inputs():
    for source in ["", "\n\n", "x", "x :=", "input", "((((((((((", "9" * 400, '"' * 3, "/*", "a := " + "(" * 3000]:
        try:
            polydat.compile(source)
        except CompileError:
            pass
