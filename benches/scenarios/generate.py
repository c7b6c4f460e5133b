"""Writes the performance scenario files of this directory.

Run ``python benches/scenarios/generate.py`` to regenerate them; the files are
committed, so ``polydat bench benches/scenarios/*.polydat`` works without this
script. Each scenario exercises one shape of graph and change pattern; its
header says what it measures and what the provenance modes should do
on it. Chains alternate ``hash`` with ``add``/``u64_xor`` by a constant, which
no fusion rule rewrites, so node counts are what the files say.
"""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))

PRIMES = [
    1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061, 1063, 1069, 1087, 1091, 1093, 1097,
    1103, 1109, 1117, 1123, 1129, 1151, 1153, 1163, 1171, 1181, 1187, 1193, 1201, 1213, 1217, 1223,
]


def chain(prefix: str, source: str, length: int, salt: int = 0) -> tuple[list[str], str]:
    """``length`` bindings ``prefix0..``: hash, then add a constant, alternately.
    Returns the lines and the name of the last binding."""
    lines = []
    prev = source
    for i in range(length):
        name = f"{prefix}{i}"
        if i % 2 == 0:
            lines.append(f"{name} := hash({prev})")
        else:
            lines.append(f"{name} := add({prev}, {PRIMES[(i // 2 + salt) % len(PRIMES)]})")
        prev = name
    return lines, prev


def scenario(header: str, graph: list[str], driver: list[str] | None = None, weights: dict[str, int] | None = None) -> str:
    out = [f"// {line}" if line else "//" for line in header.strip().splitlines()]
    out.append("")
    if driver:
        out.append("/// @driver")
        out += [f"/// {line}" for line in driver]
        out.append("")
    if weights:
        out.append("/// @pull_weights")
        out += [f"/// {name}: {w}" for name, w in weights.items()]
        out.append("")
    out.append("/// @graph")
    out += graph
    return "\n".join(out) + "\n"


def deep_chain() -> str:
    lines, last = chain("n", "cycle", 199)
    graph = ["input cycle: u64", *lines, f"out := hash({last})"]
    return scenario(
        """
deep_chain: one input, a 200-node linear chain, every node dirty every cycle.
The provenance-overhead baseline: nothing can be skipped, so Raw and Pull
should be equal (the cone guard falls through) and Push pays its per-step
clean checks and dependent marking for nothing.
""",
        graph,
        weights={"out": 1},
    )


def stable_params() -> str:
    t, t_last = chain("t", "tenant", 16)
    r, r_last = chain("r", "region", 14, salt=5)
    c, c_last = chain("c", "cycle", 17, salt=9)
    graph = [
        "input cycle: u64",
        "extern tenant: u64 = 0",
        "extern region: u64 = 0",
        *t,
        *r,
        "params := u64_xor(" + t_last + ", " + r_last + ")",
        *c,
        f"out := hash(u64_add({c_last}, params))",
    ]
    return scenario(
        """
stable_params: 50 nodes; the cycle feeds an 18-node chain, two configuration
externs (rewritten with the same values every cycle by the driver) feed 31
nodes. Every cycle pulls `out`, whose cone is everything, so the cone guard
never skips; push-side invalidation skips the 31 stable nodes. Expect
PushPull (and Push) ahead of Raw and Pull.
""",
        graph,
        driver=["cycle := meta", "tenant := 42", "region := 7"],
        weights={"out": 1},
    )


def all_changing() -> str:
    a, a_last = chain("a", "x", 15)
    b, b_last = chain("b", "y", 15, salt=3)
    c, c_last = chain("c", "z", 15, salt=6)
    graph = [
        "input (x: u64, y: u64, z: u64)",
        *a,
        *b,
        *c,
        f"ab := u64_xor({a_last}, {b_last})",
        f"abc := u64_add(ab, {c_last})",
        "out := hash(abc)",
        "last := hash(out)",
    ]
    return scenario(
        """
all_changing: 49 nodes over three inputs that all change every cycle. The
all-dirty case: Pull should be within a few percent of Raw (one mask test
per pull), Push slower (it compares and marks every dependent for nothing).
""",
        graph,
        driver=["x := meta", "y := hash(meta)", "z := mul(meta, 3)"],
        weights={"last": 1},
    )


def mostly_stable() -> str:
    lines = ["input cycle: u64"] + [f"extern p{i}: u64 = 0" for i in range(1, 5)]
    lasts = []
    for i in range(1, 5):
        ch, last = chain(f"s{i}_", f"p{i}", 20, salt=i * 4)
        lines += ch
        lasts.append(last)
    cy, cy_last = chain("c", "cycle", 19)
    lines += cy
    lines += [
        f"s12 := u64_xor({lasts[0]}, {lasts[1]})",
        f"s34 := u64_xor({lasts[2]}, {lasts[3]})",
        "summary := u64_add(s12, s34)",
        f"cycle_out := u64_xor({cy_last}, summary)",
    ]
    return scenario(
        """
mostly_stable: 103 nodes, five inputs: the cycle (a 19-node chain) and four
parameters p1..p4 that the driver rewrites with the same values every cycle,
each feeding a 20-node chain. Forty-nine reads in fifty pull `summary`,
whose cone holds only the stable chains; one in fifty pulls `cycle_out`,
whose cone is everything. The best case for provenance: the cone guard
answers most pulls without entering the eval loop, where Raw sweeps the
whole program after every cycle write (the issue asks Pull to be at least 10x
faster). Pull sweeps all of `cycle_out`'s cone when it is read, PushPull
re-runs only its dirty part.
""",
        lines,
        driver=["cycle := meta", "p1 := 100", "p2 := 200", "p3 := 300", "p4 := 400"],
        weights={"summary": 49, "cycle_out": 1},
    )


def mixed_rates() -> str:
    lines = ["input (fast: u64, medium: u64, slow: u64, fixed: u64)"]
    outs = []
    for i, src in enumerate(["fast", "medium", "slow", "fixed"]):
        ch, last = chain(f"{src}_", src, 19, salt=i * 7)
        lines += ch
        lines.append(f"{src}_out := hash({last})")
        outs.append(f"{src}_out")
    return scenario(
        """
mixed_rates: 80 nodes in four 20-node chains whose inputs change every cycle,
every 100 cycles, every 10,000 cycles and never. Reads spread over the four
outputs; only the `fast` chain is dirty on most cycles, so the cone guard
skips most reads of the other three. Expect Pull fastest.
""",
        lines,
        driver=["fast := meta", "medium := div(meta, 100)", "slow := div(meta, 10000)", "fixed := 5"],
        weights={"fast_out": 1, "medium_out": 3, "slow_out": 3, "fixed_out": 3},
    )


def hot_cold_outputs() -> str:
    hot, hot_last = chain("h", "cycle", 4)
    seed, seed_last = chain("k", "seed", 14, salt=2)
    warm_a, wa_last = chain("wa", "cycle", 5, salt=4)
    warm_b, wb_last = chain("wb", seed_last, 5, salt=6)
    lines = [
        "input cycle: u64",
        "extern seed: u64 = 0",
        *hot,
        f"hot_out := hash({hot_last})",
        *seed,
        *warm_a,
        f"warm_a := u64_xor({wa_last}, {seed_last})",
        *warm_b,
        f"warm_b := hash({wb_last})",
        f"cold_mix := u64_add(warm_a, warm_b)",
        "cold_1 := hash(cold_mix)",
        "cold_2 := add(cold_1, 1229)",
        "cold_out := hash(u64_xor(cold_2, hot_out))",
    ]
    return scenario(
        """
hot_cold_outputs: 36 nodes, one coordinate and one configuration extern.
`hot_out` (a 5-node cone on the cycle) takes 80% of the reads, `warm_a`,
`warm_b` and `cold_out` (whose cone is almost everything) the rest. Large
cones with a stable part (the extern's chain): push skips it inside the
dirty cones, the guard helps `warm_b`.
""",
        lines,
        driver=["cycle := meta", "seed := 99"],
        weights={"hot_out": 80, "warm_a": 8, "warm_b": 7, "cold_out": 5},
    )


def selective_cone() -> str:
    a, a_last = chain("a", "cycle", 29)
    b1, b1_last = chain("b", "alpha", 34, salt=3)
    b2, b2_last = chain("g", "beta", 34, salt=8)
    lines = [
        "input cycle: u64",
        "extern alpha: u64 = 0",
        "extern beta: u64 = 0",
        *a,
        f"leaf_a := hash({a_last})",
        *b1,
        *b2,
        f"leaf_b := u64_xor({b1_last}, {b2_last})",
    ]
    return scenario(
        """
selective_cone: 99 nodes in two disjoint cones: `leaf_a` (30 nodes on the
cycle) and `leaf_b` (69 nodes on two configuration externs the driver
rewrites unchanged). Reads are selective: nineteen in twenty pull `leaf_b`,
whose cone no per-cycle input reaches. Raw sweeps all 99 nodes after every
cycle write (a new round makes every step stale); the cone guard returns
`leaf_b` cached, and a stale `leaf_a` runs as its own 30-step cone thread
(the issue asks Pull to be at least 10x faster than Raw).
""",
        lines,
        driver=["cycle := meta", "alpha := 11", "beta := 13"],
        weights={"leaf_b": 19, "leaf_a": 1},
    )


def multi_root() -> str:
    lines = ["input cycle: u64", "extern a: u64 = 0", "extern b: u64 = 0", "extern c: u64 = 0"]
    for i, src in enumerate(["cycle", "a", "b", "c"]):
        ch, last = chain(f"{src}_", src, 49, salt=i * 5)
        lines += ch
        lines.append(f"root_{src} := hash({last})")
    return scenario(
        """
multi_root: 200 nodes in four separate 50-node trees, one per input: the
cycle and three externs the driver rewrites unchanged. Reads spread over
the four roots. Output cones are a quarter of the graph, so the heuristic
picks Pull; three reads in four find a clean cone.
""",
        lines,
        driver=["cycle := meta", "a := 1", "b := 2", "c := 3"],
        weights={"root_cycle": 1, "root_a": 1, "root_b": 1, "root_c": 1},
    )


def keyvalue() -> str:
    lines = [
        "input cycle: u64",
        "key_hash := hash(cycle)",
        "user_id := mod(key_hash, 1000000)",
        "shard := mod(hash(user_id), 64)",
        "balance := mod(key_hash, 100000)",
        "region := mod(hash(shard), 12)",
        'key := "user:{user_id}"',
        'value := "{balance}@{region}"',
    ]
    return scenario(
        """
keyvalue: a small key-value record (seven nodes, one input) with string
fields: the key and value are formatted strings, so the P2 kernels run them
through the slot kit over Ref slots. Tiny and all dirty: the heuristic picks
Raw; Pull should match it.
""",
        lines,
        weights={"key": 1, "value": 1},
    )


def multi_table() -> str:
    lines = ["input cycle: u64"]
    tables = {
        "users": ["id := hash(cycle)", "age := add(mod(users_id, 80), 18)", "score := hash(u64_xor(users_id, 17))"],
        "orders": ["id := hash(add(cycle, 1))", "qty := add(mod(orders_id, 9), 1)", "price := mod(hash(orders_id), 100000)"],
        "products": ["id := hash(add(cycle, 2))", "cat := mod(products_id, 40)", "stock := mod(hash(products_id), 1000)"],
        "events": ["id := hash(add(cycle, 3))", "kind := mod(events_id, 7)", "at := add(mod(hash(events_id), 86400000), 1700000000000)"],
    }
    for table, cols in tables.items():
        lines += [f"{table}_{col}" for col in cols]
        last_col = cols[-1].split(" := ")[0]
        extra, last = chain(f"{table}_x", f"{table}_{last_col}", 4, salt=len(table))
        lines += extra
        lines.append(f"{table}_row := u64_xor({table}_id, {last})")
    return scenario(
        """
multi_table: four independent table generators (users, orders, products,
events; 40 nodes) over the cycle, each read a quarter of the time. Every cone is
dirty every cycle (all on the cycle), but each is a quarter of the graph:
the heuristic picks Pull, which should equal Raw.
""",
        lines,
        weights={"users_row": 1, "orders_row": 1, "products_row": 1, "events_row": 1},
    )


def ladder() -> str:
    lines = [
        "input cycle: u64",
        "input tenant_seed: u64",
        "input operation_seed: u64",
        "seeded_cycle := u64_add(cycle, tenant_seed)",
        "identity_entropy := hash(seeded_cycle)",
        "account_id := mod(identity_entropy, 10000000)",
        "route_seed := u64_xor(account_id, operation_seed)",
        "route_entropy := hash(route_seed)",
        "shard := mod(route_entropy, 64)",
        "payload_seed := u64_add(identity_entropy, operation_seed)",
        "payload_entropy := hash(payload_seed)",
        "payload_class := mod(payload_entropy, 8)",
        "token_seed := u64_add(route_entropy, payload_entropy)",
        "event_token := hash(token_seed)",
    ]
    return scenario(
        """
ladder: the engine-ladder graph (11 nodes, 3 inputs) with the
criterion bench's fixed seeds, one of the four consumed outputs read per
cycle. Tiny and all dirty: the heuristic picks Raw.
""",
        lines,
        driver=["cycle := meta", "tenant_seed := 0x54454e414e54", "operation_seed := 0x4f50455241544f"],
        weights={"account_id": 1, "shard": 1, "payload_class": 1, "event_token": 1},
    )


#: The fields of the JSON record the tile and printf scenarios build.
RECORD_FIELDS = [
    "input cycle: u64",
    "h := hash(cycle)",
    "id := mod(h, 1000000000)",
    "name := number_to_words(mod(h, 100000))",
    'email := "user{id}@example.com"',
    "score := unit_interval(hash(h)) * 100.0",
    "age := mod(hash(id), 90)",
    "active := mod(h, 2) == 0",
    "tag := format_u64(hash(age), 16)",
    "ts := add(mod(h, 86400000), 1700000000000)",
]


def tile_json() -> str:
    return scenario(
        """
tile_json: an eight-field JSON record (four numbers, one 0/1 flag, three
strings) rendered by a json tile: one __tile node whose string holes are
JSON-escaped. Compare with printf_json, the same record built by printf
(no escaping): a tile should cost at most 1.5x the printf.
""",
        [
            *RECORD_FIELDS,
            'tile record : json := {"id": ${id}, "name": "${name}", "email": "${email}", "score": ${score}, '
            '"age": ${age}, "active": ${active}, "tag": "${tag}", "ts": ${ts}}',
        ],
        weights={"record": 1},
    )


def printf_json() -> str:
    return scenario(
        """
printf_json: the record of tile_json built by string interpolation (one
printf, strings copied unescaped): the baseline of the tile.
""",
        [
            *RECORD_FIELDS,
            'record := "{{\\"id\\": {id}, \\"name\\": \\"{name}\\", \\"email\\": \\"{email}\\", '
            '\\"score\\": {score}, \\"age\\": {age}, \\"active\\": {active}, \\"tag\\": \\"{tag}\\", '
            '\\"ts\\": {ts}}}"',
        ],
        weights={"record": 1},
    )


SCENARIOS = {
    "deep_chain": deep_chain,
    "stable_params": stable_params,
    "all_changing": all_changing,
    "mostly_stable": mostly_stable,
    "mixed_rates": mixed_rates,
    "hot_cold_outputs": hot_cold_outputs,
    "selective_cone": selective_cone,
    "multi_root": multi_root,
    "keyvalue": keyvalue,
    "multi_table": multi_table,
    "ladder": ladder,
    "tile_json": tile_json,
    "printf_json": printf_json,
}


def main() -> None:
    for name, make in SCENARIOS.items():
        with open(os.path.join(HERE, f"{name}.polydat"), "w", encoding="utf-8") as f:
            f.write(make())


if __name__ == "__main__":
    main()
