"""User modules: inline definitions, module files beside the source and on the library path."""

from __future__ import annotations

from pathlib import Path


from dsl_helpers import output, producer, tree, output_types, core_tree

SINE = """
sine_wave(input: u64, period: u64) -> (value: f64) := {
    pos := to_f64(input % period)
    per := to_f64(period)
    value := sin((pos / per) * 6.283185307179586)
}
"""


def test_inline_module_is_inlined_at_each_call(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind(SINE + "input cycle\na := sine_wave(cycle, 100)\nb := sine_wave(input: cycle, period: 7)")
    assert output_types(bound) == {"a": "f64", "b": "f64"}
    assert [o["name"] for o in bound.ir["outputs"]] == ["a", "b"]
    assert core_tree(bound, "a") == (
        "sin",
        ("f64_mul", ("f64_div", ("to_f64", ("u64_mod", "cycle", 100)), ("to_f64", 100)), 6.283185307179586),
    )
    assert set(bound.internal_wires) == {"__m0_pos", "__m0_per", "__m0_value", "__m1_pos", "__m1_per", "__m1_value"}


def test_inline_module_nodes_carry_body_spans(bind) -> None:  # type: ignore[no-untyped-def]
    import json

    from dsl_helpers import core_program

    bound = bind(SINE + "input cycle\na := sine_wave(cycle, 100)")
    nodes = json.loads(core_program(bound).explain_json())["resolved"]["nodes"]
    (node,) = [n for n in nodes if "a" in n["bindings"]]
    assert (node["line"], node["col"]) == (5, 14)


def test_literal_arguments_reach_constant_positions(bind) -> None:  # type: ignore[no-untyped-def]
    src = "hashed_id(input: u64, bound: u64) -> (id: u64) := { id := mod(hash(input), bound) }\n"
    bound = bind(src + "input cycle\nuser := hashed_id(cycle, 1000)")
    assert core_tree(bound, "user") == ("mod", ("hash", "cycle"), ("const", 1000))


def test_literal_argument_converts_to_the_parameter_type(bind) -> None:  # type: ignore[no-untyped-def]
    src = "scaled(x: u64, lo: f64, hi: f64) -> (v: f64) := { v := hash_interval(x, lo, hi) + lo }\n"
    bound = bind(src + "input cycle\ns := scaled(cycle, 1, 2)")
    assert core_tree(bound, "s") == ("f64_add", ("hash_interval", "cycle", ("const", 1.0), ("const", 2.0)), 1.0)


def test_module_shadows_a_library_node(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("hash(x: u64) -> (y: u64) := { y := x + 1 }\ninput c\nh := hash(c)")
    assert core_tree(bound, "h") == ("u64_add", "c", 1)


def test_multi_output_module_destructures(bind) -> None:  # type: ignore[no-untyped-def]
    src = "split(x) -> (hi, lo) := { (lo, hi) := mixed_radix(x, 10, 0) }\n"
    bound = bind(src + "input c\n(h, l) := split(c)")
    assert output(bound, "h")["wire"] == {"node": {"node": 0, "port": 1}}
    assert output(bound, "l")["wire"] == {"node": {"node": 0, "port": 0}}


def test_module_argument_widening_and_output_coercion(bind) -> None:  # type: ignore[no-untyped-def]
    src = "half(x: f64) -> (y: f64, s: str) := { y := x / 2\ns := y }\n"
    bound = bind(src + "input c\n(h, s) := half(c)")
    assert core_tree(bound, "h", adapters=True) == ("f64_div", ("__u64_to_f64", "c"), 2.0)
    assert output_types(bound) == {"h": "f64", "s": "str"}


def test_module_argument_type_mismatch(compile_error) -> None:  # type: ignore[no-untyped-def]
    src = "m(x: u64) -> (y) := { y := x }\nextern f: f64 = 1\nv := m(f)"
    err = compile_error(src)
    assert err.message == "argument 'x' of module 'm' expects u64 but the value is f64"
    assert (err.line, err.col) == (3, 8)
    assert "round_to_u64" in err.hint


def test_module_literal_argument_mismatch(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(x: u64) -> (y) := { y := x }\nv := m(1.5)")
    assert err.message == "argument 'x' of module 'm' expects u64, got a float literal 1.5"


def test_module_output_type_mismatch(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(x: u64) -> (y: u64) := { y := to_f64(x) }\ninput c\nv := m(c)")
    assert err.message == "output 'y' of module 'm' is declared u64 but the value is f64"
    assert (err.line, err.col) == (1, 15)


def test_module_arity_errors(compile_error) -> None:  # type: ignore[no-untyped-def]
    src = "m(a: u64, b: u64) -> (y) := { y := a + b }\ninput c\n"
    err = compile_error(src + "v := m(c)")
    assert err.message == "missing argument 'b' for module 'm'"
    assert err.hint == "signature: m(a: u64, b: u64) -> (y)"
    err = compile_error(src + "v := m(c, c, c)")
    assert err.message == "module 'm' takes 2 arguments but 3 were given"
    err = compile_error(src + "v := m(c, z: c)")
    assert err.message == "module 'm' has no parameter named 'z'"


def test_module_body_unknown_name(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (y) := { y := a + cycle }\ninput cycle\nv := m(cycle)")
    assert err.message == "'cycle' is not a parameter or binding of module 'm'"
    assert (err.line, err.col) == (1, 27)
    assert "argument" in err.hint


def test_module_must_bind_its_outputs(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (y, z) := { y := a }\ninput c\n(p, q) := m(c)")
    assert err.message == "module 'm' does not bind its output 'z'"
    assert (err.line, err.col) == (1, 13)


def test_module_output_may_be_a_parameter(bind) -> None:  # type: ignore[no-untyped-def]
    bound = bind("ident(a) -> (a) := { }\ninput c\nv := ident(c)")
    assert output(bound, "v")["wire"] == {"input": 0}


def test_module_body_rules(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (y) := { const y := a }\ninput c\nv := m(c)")
    assert err.message == "const binding 'y' depends on coordinate input 'c'"
    err = compile_error("m(a) -> (y) := { volatile y := a }\ninput c\nv := m(c)")
    assert err.message == "modifiers other than const are not allowed inside module 'm'"
    err = compile_error("m(a) -> (y) := { input q\ny := a }")
    assert err.message == "an input declaration is not allowed inside module 'm'"
    err = compile_error("m(a) -> (y) := { n(b) -> (c) := { c := b }\ny := a }")
    assert err.message == "module definitions cannot be nested (inside module 'm')"
    err = compile_error("m(a) -> (y) := { y := a\ny := a }\ninput c\nv := m(c)")
    assert err.message == "'y' is already bound"
    err = compile_error("m(a) -> (y) := { a := 1\ny := a }\ninput c\nv := m(c)")
    assert err.message == "'a' is already a parameter of module 'm'"


def test_module_body_cycle(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (y) := { y := z + a\nz := y }\ninput c\nv := m(c)")
    assert err.message == "cycle between bindings: y -> z -> y"


def test_recursive_module(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (y) := { y := m(a) }\ninput c\nv := m(c)")
    assert err.message == "module 'm' calls itself; modules are inlined, so recursion is not possible"
    assert (err.line, err.col) == (1, 23)
    err = compile_error("p(a) -> (y) := { y := q(a) }\nq(a) -> (y) := { y := p(a) }\ninput c\nv := p(c)")
    assert "calls itself" in err.message


def test_duplicate_module_definition(compile_error) -> None:  # type: ignore[no-untyped-def]
    err = compile_error("m(a) -> (y) := { y := a }\nm(b) -> (y) := { y := b }")
    assert err.message == "module 'm' is defined twice"
    assert (err.line, err.col) == (2, 1)


def test_modules_nest(bind) -> None:  # type: ignore[no-untyped-def]
    src = "inc(a) -> (y) := { y := a + 1 }\ntwice(a) -> (y) := { y := inc(inc(a)) }\ninput c\nv := twice(c)"
    bound = bind(src)
    assert core_tree(bound, "v") == ("u64_add", ("u64_add", "c", 1), 1)
    assert set(bound.internal_wires) == {"__m0_y", "__m1_y", "__m2_y"}


# -- module files -------------------------------------------------------------


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_module_file_beside_the_source(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "hashed_id.polydat", "hashed_id(input: u64, bound: u64) -> (id: u64) := {\n  id := mod(hash(input), bound)\n}\n")
    main = write(tmp_path / "main.polydat", "input cycle\nuser := hashed_id(cycle, 100)\n")
    bound = bind(main.read_text(), path=str(main))
    assert core_tree(bound, "user") == ("mod", ("hash", "cycle"), ("const", 100))
    # Nodes inlined from another file carry the call site's span.
    assert producer(bound, "user")["span"] == {"line": 2, "col": 9}


def test_module_file_on_the_library_path(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    write(lib / "double.polydat", "double(x) -> (y) := { y := x * 2 }")
    bound = bind("input c\nv := double(c)", library_path=[lib])
    assert core_tree(bound, "v") == ("u64_mul", "c", 2)


def test_source_directory_wins_over_library_path(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "src" / "bump.polydat", "bump(x) -> (y) := { y := x + 1 }")
    write(tmp_path / "lib" / "bump.polydat", "bump(x) -> (y) := { y := x + 2 }")
    main = tmp_path / "src" / "main.polydat"
    bound = bind("input c\nv := bump(c)", path=str(main), library_path=[tmp_path / "lib"])
    assert core_tree(bound, "v") == ("u64_add", "c", 1)


def test_library_path_is_searched_in_order(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "a" / "bump.polydat", "bump(x) -> (y) := { y := x + 1 }")
    write(tmp_path / "b" / "bump.polydat", "bump(x) -> (y) := { y := x + 2 }")
    bound = bind("input c\nv := bump(c)", library_path=[tmp_path / "b", tmp_path / "a"])
    assert core_tree(bound, "v") == ("u64_add", "c", 2)


def test_module_found_in_a_differently_named_file(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "lib" / "stdlib.polydat", "plus1(x) -> (y) := { y := x + 1 }\nplus2(x) -> (y) := { y := plus1(plus1(x)) }")
    bound = bind("input c\nv := plus2(c)", library_path=[tmp_path / "lib"])
    assert core_tree(bound, "v") == ("u64_add", ("u64_add", "c", 1), 1)


def test_compatibility_form_module(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(
        tmp_path / "lib" / "jitter.polydat",
        "input seed\nh := hash(seed)\nextra := 99\njitter := mod(h, 100) + offset\n",
    )
    bound = bind("input c\nv := jitter(7, c)", library_path=[tmp_path / "lib"])
    # inputs of the compatibility module: offset, seed (sorted)
    assert core_tree(bound, "v") == ("u64_add", ("mod", ("hash", "c"), ("const", 100)), 7)
    assert "__m0_extra" not in bound.internal_wires


def test_module_file_errors_name_the_file(compile_error, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "lib"
    bad = write(lib / "broken.polydat", "broken(x) -> (y) := {\n  y := hsah(x)\n}\n")
    err = compile_error("input c\nv := broken(c)", library_path=[lib])
    assert err.message == "unknown node 'hsah'"
    assert (err.line, err.col) == (2, 8)
    assert err.diagnostic.path == str(bad)
    assert str(err).startswith(f"{bad}:2:8:error: unknown node 'hsah'")
    assert "  |   y := hsah(x)" in str(err)


def test_module_file_parse_errors_name_the_file(compile_error, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = write(tmp_path / "lib" / "oops.polydat", "oops(x) -> (y) := { y := (x }")
    err = compile_error("input c\nv := oops(c)", library_path=[tmp_path / "lib"])
    assert err.diagnostic.path == str(bad)
    assert err.message == "expected ')' but found '}'"


def test_broken_unrelated_files_are_skipped(bind, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "lib" / "aaa_broken.polydat", "this is not polydat (")
    write(tmp_path / "lib" / "zzz.polydat", "found(x) -> (y) := { y := x }")
    bound = bind("input c\nv := found(c)", library_path=[tmp_path / "lib"])
    assert output(bound, "v")["wire"] == {"input": 0}


def test_unknown_module_when_no_file_provides_it(compile_error, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write(tmp_path / "lib" / "other.polydat", "other(x) -> (y) := { y := x }")
    err = compile_error("input c\nv := missing_one(c)", library_path=[tmp_path / "lib"])
    assert err.message == "unknown node 'missing_one'"


def test_main_file_is_not_its_own_module_source(compile_error, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    main = write(tmp_path / "main.polydat", "input c\nv := v2(c)\nv2 := 1\n")
    err = compile_error(main.read_text(), path=str(main))
    assert err.message == "'v2' is a value, not a node or module; it cannot be called"


def test_module_nesting_limit(compile_error) -> None:  # type: ignore[no-untyped-def]
    chain = "\n".join(f"m{i}(a) -> (y) := {{ y := m{i + 1}(a) }}" for i in range(60))
    err = compile_error(chain + "\nm60(a) -> (y) := { y := a }\ninput c\nv := m0(c)")
    assert err.message == "module calls nest more than 40 deep"


def test_module_nesting_within_the_limit(bind) -> None:  # type: ignore[no-untyped-def]
    chain = "\n".join(f"m{i}(a) -> (y) := {{ y := m{i + 1}(a) + 1 }}" for i in range(30))
    bound = bind(chain + "\nm30(a) -> (y) := { y := a }\ninput c\nv := m0(c)")
    assert len(bound.ir["nodes"]) == 60


def test_unreadable_module_file(compile_error, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "lib" / "binary.polydat"
    bad.parent.mkdir()
    bad.write_bytes(b"\xff\xfe\x00 not utf-8")
    err = compile_error("input c\nv := binary(c)", library_path=[tmp_path / "lib"])
    assert err.message.startswith("the file is not UTF-8 text") and (err.line, err.col) == (1, 1)
    assert err.diagnostic.path == str(bad)
