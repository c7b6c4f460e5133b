"""Integer and float lists (`vec_i32`, `vec_i64`, `vec_f64`) and the
vector-set nodes, as a user meets them: upstream's worked examples on every
engine, lists written from Python and read back as Python lists, and their
columns in numpy, Arrow, Parquet, CSV and JSON Lines."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import polydat
from polydat.errors import CompileError

ENGINES = ["p1", "p2", "p3", "mixed"]

ORDS = 'input cycle: u64\nlist := "[3, 9, 14, 20]"\nords := str_to_vec_i32(list)\n'


def pulled(source: str, engine: str, names: list[str]) -> list[object]:
    k = polydat.compile(source, engine=engine).kernel()
    k.set_inputs(0)
    got = k.eval()
    return [got[n] for n in names]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_list_answers_its_length_elements_and_bounds(engine: str) -> None:
    source = ORDS + (
        "n := vec_len_i32(ords)\nfirst := vec_at_i32(ords, 0)\nthird := vec_at_i32(ords, 2)\n"
        "past := vec_at_i32(ords, 99)\nhi := vec_max_i32(ords)\nlo := vec_min_i32(ords)\n"
    )
    # Upstream's expected values: past the end answers 0 rather than failing.
    assert pulled(source, engine, ["n", "first", "third", "past", "hi", "lo"]) == [4, 3, 14, 0, 20, 3]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_rank_is_a_position_not_a_counter(engine: str) -> None:
    source = ORDS + (
        "rank_by_position := vec_position_i32(ords, 14 as i64)\n"
        "rank_by_count := vec_count_below_i32(ords, 14 as i64)\n"
        "absent := vec_position_i32(ords, 7 as i64)\n"
        "below_absent := vec_count_below_i32(ords, 7 as i64)\n"
        "matches := vec_len_i32(ords)\n"
    )
    names = ["rank_by_position", "rank_by_count", "absent", "below_absent", "matches"]
    # An absent value positions past the end (the length, 4).
    assert pulled(source, engine, names) == [2, 2, 4, 1, 4]


@pytest.mark.parametrize("engine", ENGINES)
def test_membership_and_set_comparisons_ignore_order_and_repetition(engine: str) -> None:
    source = (
        'input cycle: u64\na := str_to_vec_i32("[1, 2, 3]")\nb := str_to_vec_i32("[3, 2, 1, 1]")\n'
        'c := str_to_vec_i32("[3, 4]")\nhas := vec_contains_i32(a, 2 as i64)\n'
        "hasnt := vec_contains_i32(a, 42 as i64)\nsame := vec_set_eq_i32(a, b)\ndiffer := vec_set_eq_i32(a, c)\n"
        "overlap := vec_intersect_count_i32(a, c)\noverlap_dup := vec_intersect_count_i32(a, b)\n"
    )
    names = ["has", "hasnt", "same", "differ", "overlap", "overlap_dup"]
    assert pulled(source, engine, names) == [1, 0, 1, 0, 1, 3]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_i64_forms_read_the_same_way(engine: str) -> None:
    source = (
        'input cycle: u64\nv := str_to_vec_i64("[10, 20, 30]")\nn := vec_len_i64(v)\nat := vec_at_i64(v, 1)\n'
        "hi := vec_max_i64(v)\nlo := vec_min_i64(v)\nhas := vec_contains_i64(v, 20 as i64)\n"
        "pos := vec_position_i64(v, 30 as i64)\nbelow := vec_count_below_i64(v, 25 as i64)\n"
        "same := vec_set_eq_i64(v, v)\noverlap := vec_intersect_count_i64(v, v)\n"
    )
    names = ["n", "at", "hi", "lo", "has", "pos", "below", "same", "overlap"]
    assert pulled(source, engine, names) == [3, 20, 30, 10, 1, 2, 2, 1, 3]


@pytest.mark.parametrize("engine", ENGINES)
def test_the_recall_audit_quantities_are_functions_of_the_list_per_row(engine: str) -> None:
    # The rank of each row's ordinal among the matching ones, and how many match.
    source = (
        'input cycle: u64\nmatching := str_to_vec_i32("[3, 9, 14, 20, 27]")\n'
        "rank := vec_count_below_i32(matching, cycle as i64)\ncardinality := vec_len_i32(matching)\n"
    )
    cols = polydat.compile(source, engine=engine).generate(range(30), outputs=["rank", "cardinality"])
    expected = [sum(1 for m in [3, 9, 14, 20, 27] if m < c) for c in range(30)]
    assert cols["rank"].tolist() == expected
    assert set(cols["cardinality"].tolist()) == {5}


@pytest.mark.parametrize("engine", ENGINES)
def test_an_empty_list_and_a_none_list(engine: str) -> None:
    source = (
        'extern v: vec_i64 = "[]"\nn := vec_len_i64(v)\nhi := vec_max_i64(v)\nlo := vec_min_i64(v)\n'
        "pos := vec_position_i64(v, 5 as i64)\nat := vec_at_i64(v, 0)\n"
    )
    k = polydat.compile(source, engine=engine).kernel()
    assert k.eval() == {"n": 0, "hi": 0, "lo": 0, "pos": 0, "at": 0}
    k.set("v", None)
    assert set(k.eval().values()) == {None}, "a None list yields None, as every node's None rule says"


@pytest.mark.parametrize("engine", ENGINES)
def test_lists_come_back_as_python_lists_and_go_in_as_lists_or_numpy_arrays(engine: str) -> None:
    source = 'extern v: vec_i32 = "[]"\nextern w: vec_f64 = "[0.5]"\nsame := v\nn := vec_len_i32(v)\nfloats := w\n'
    k = polydat.compile(source, engine=engine).kernel()
    assert k.eval() == {"same": [], "n": 0, "floats": [0.5]}
    k.set("v", [5, -2, 2**31 - 1])
    k.set("w", np.array([1.0, 2.5]))
    got = k.eval()
    assert got == {"same": [5, -2, 2**31 - 1], "n": 3, "floats": [1.0, 2.5]}
    assert all(type(x) is int for x in got["same"]) and all(type(x) is float for x in got["floats"])
    k.set("v", np.array([7, 8], dtype=np.int64))
    assert k.pull("same") == [7, 8]
    k.set("v", "[1, 2]")
    assert k.pull("n") == 2, "a list's JSON text is written as the list"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([1, 2**31], r"element 1 \(2147483648\) .* not an integer in the i32 range"),
        ([1, 2.5], r"element 1 \(2.5\) .* not an integer"),
        ([1, "x"], r'element 1 \("x"\) .* not an integer'),
        ("[1,", r"cannot read .* as a JSON array"),
        ({"a": 1}, r"is not a JSON array"),
        (7, r"cannot write u64 value 7"),
    ],
)
def test_a_value_that_is_no_list_of_the_type_is_refused_naming_the_element(value: object, message: str) -> None:
    k = polydat.compile('extern v: vec_i32 = "[]"\nn := vec_len_i32(v)').kernel()
    with pytest.raises(polydat.PolydatError, match=message):
        k.set("v", value)
    assert k.eval() == {"n": 0}, "a refused write leaves the input as it was"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("node", "text", "message"),
    [
        ("str_to_vec_i32", "[1, 2147483648]", "str_to_vec_i32: element 2147483648 is outside i32 [-2147483648, 2147483647]"),
        ("str_to_vec_i64", "[1, 2.5]", 'str_to_vec_i64: element 2.5 is not an integer in "[1, 2.5]"'),
        ("str_to_vec_i64", '{"a": 1}', 'str_to_vec_i64: parsed JSON is not an array: "{\\"a\\": 1}"'),
        ("str_to_vec_f64", "[1, true]", 'str_to_vec_f64: element true is not a number in "[1, true]"'),
        ("str_to_vec_i32", "[0, x]", 'str_to_vec_i32: cannot parse "[0, x]" as a JSON array:'),
    ],
)
def test_a_malformed_list_text_fails_the_parse_with_upstreams_words(
    engine: str, node: str, text: str, message: str
) -> None:
    k = polydat.compile(f'extern text: str = "[]"\nv := {node}(text)', engine=engine).kernel()
    assert k.eval() == {"v": []}
    k.set("text", text)
    with pytest.raises(polydat.EvalError) as caught:
        k.eval()
    assert message in str(caught.value)


def test_a_malformed_constant_list_text_is_a_compile_error() -> None:
    with pytest.raises(CompileError, match=r'str_to_vec_f64: element true is not a number in "\[1, true\]"'):
        polydat.compile('v := str_to_vec_f64("[1, true]")')


def test_a_list_literal_is_json_text_in_a_string_and_a_bad_one_is_a_compile_error() -> None:
    assert polydat.compile('extern v: vec_i64 = " [1, -2] "\nn := vec_len_i64(v)').kernel().eval() == {"n": 2}
    with pytest.raises(CompileError, match=r"a vec_i32 constant is a JSON array: element 1 \(2.5\)"):
        polydat.compile('extern v: vec_i32 = "[1, 2.5]"\nn := vec_len_i32(v)')
    with pytest.raises(CompileError, match="a vec_i32 constant is a JSON array in a string"):
        polydat.compile("extern v: vec_i32 = 5\nn := vec_len_i32(v)")
    with pytest.raises(CompileError, match="expects vec_i32, but the wire carries vec_i64"):
        polydat.compile('input cycle\nv := str_to_vec_i64("[1]")\nn := vec_len_i32(v)')


SOURCE = (
    "input cycle: u64\n"
    'ords := str_to_vec_i32("[{cycle}, 9, -14]")\n'
    'none_yet := str_to_vec_i64("[]")\n'
    'w := str_to_vec_f64("[0.5, {cycle}, 1e300]")\n'
)


def test_a_list_column_in_numpy_is_an_object_array_of_python_lists() -> None:
    cols = polydat.compile(SOURCE).generate(range(2))
    assert cols["ords"].dtype == object
    assert cols["ords"].tolist() == [[0, 9, -14], [1, 9, -14]]
    assert cols["none_yet"].tolist() == [[], []]
    assert cols["w"].tolist() == [[0.5, 0.0, 1e300], [0.5, 1.0, 1e300]]


def test_a_list_column_in_arrow_and_parquet_is_a_list_array(tmp_path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    table = polydat.compile(SOURCE).generate(range(2), format="arrow")
    assert table.schema.field("ords").type == pa.list_(pa.field("item", pa.int32(), nullable=False))
    assert table.schema.field("none_yet").type.value_type == pa.int64()
    assert table.schema.field("w").type.value_type == pa.float64()
    assert table.column("ords").to_pylist() == [[0, 9, -14], [1, 9, -14]]
    path = tmp_path / "lists.parquet"
    pq.write_table(table, path)
    back = pq.read_table(path)
    assert back.column("w").to_pylist() == [[0.5, 0.0, 1e300], [0.5, 1.0, 1e300]]
    assert back.column("none_yet").to_pylist() == [[], []]


def test_a_list_in_csv_is_its_bracketed_elements_and_in_json_lines_an_array(tmp_path) -> None:
    source = tmp_path / "lists.polydat"
    source.write_text(SOURCE)

    def run(fmt: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "polydat", "run", str(source), "--cycles", "0..2", "--format", fmt],
            capture_output=True, text=True, check=True,
        )
        return done.stdout.splitlines()

    assert run("csv") == [
        "cycle,ords,none_yet,w",
        '0,"[0,9,-14]",[],"[0.5,0.0,1e+300]"',
        '1,"[1,9,-14]",[],"[0.5,1.0,1e+300]"',
    ]
    lines = run("jsonl")
    rows = [json.loads(line) for line in lines]
    assert rows[1] == {"cycle": 1, "ords": [1, 9, -14], "none_yet": [], "w": [0.5, 1.0, 1e300]}
    assert lines[1] == json.dumps(rows[1]), "JSON Lines lays a list out as json.dumps does"


def test_the_vector_set_nodes_are_in_the_catalog() -> None:
    names = {n["name"] for n in polydat.catalog()}
    for question in ["len", "at", "max", "min", "contains", "position", "count_below", "intersect_count", "set_eq"]:
        assert {f"vec_{question}_i32", f"vec_{question}_i64"} <= names
    assert {"str_to_vec_i32", "str_to_vec_i64", "str_to_vec_f64"} <= names


@pytest.mark.parametrize("engine", ENGINES)
def test_a_float_list_takes_non_finite_elements_from_python(engine: str) -> None:
    k = polydat.compile('extern w: vec_f64 = "[]"\nsame := w\n(level, steady) := is_stable(w, 0.05, 1)', engine=engine).kernel()
    k.set("w", [math.inf, -math.inf, 1.0])
    got = k.eval()
    assert got["same"] == [math.inf, -math.inf, 1.0]
    k.set("w", [math.nan])
    assert math.isnan(k.pull("same")[0])


def test_hypothesis_draws_lists_a_kernel_takes() -> None:
    from hypothesis import given, settings

    from polydat.hypothesis import values

    prog = polydat.compile(
        'extern a: vec_i32 = "[]"\nextern b: vec_i64 = "[]"\nextern w: vec_f64 = "[]"\n'
        "n := vec_len_i32(a)\nm := vec_len_i64(b)\nk := w"
    )

    @settings(max_examples=50, deadline=None)
    @given(values("vec_i32"), values("vec_i64"), values("vec_f64"))
    def check(a: list[int], b: list[int], w: list[float]) -> None:
        k = prog.kernel()
        k.set("a", a)
        k.set("b", b)
        k.set("w", w)
        got = k.eval()
        assert (got["n"], got["m"], len(got["k"])) == (len(a), len(b), len(w))

    check()


def test_an_array_literal_binds_text_that_a_parse_reads_in_brackets() -> None:
    prog = polydat.compile('values := [4, 5, 6]\nv := str_to_vec_i64("[{values}]")\nn := vec_len_i64(v)')
    assert prog.kernel().eval() == {"values": "4, 5, 6", "v": [4, 5, 6], "n": 3}
    with pytest.raises(CompileError, match=r'cannot parse "\[4, cycle\]" as a JSON array'):
        # a name in an array literal is text, as upstream's: no list
        polydat.compile('input cycle: u64\nvalues := [4, cycle]\nv := str_to_vec_i64("[{values}]")')
    with pytest.raises(CompileError, match="an array literal cannot be passed as an argument"):
        polydat.compile("input cycle: u64\nn := vec_len_i32(str_to_vec_i32([1, 2]))")
    with pytest.raises(CompileError, match=r'parse its JSON text: `str_to_vec_i32\("\[\{values\}\]"\)`'):
        polydat.compile("input cycle: u64\nn := 1 + [1, 2]")
