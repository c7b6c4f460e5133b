"""`printf` over word-list picks, fused into one node.

Fusion rewrites ``printf(fmt, .., list(x), ..)`` for word-list nodes
(``first_names``, ``city_names``, ...) into ``__printf_words``, which picks
each word where it prints it. These tests hold the rewrite to the values the
unfused program gives — on every engine and mode, reading rows one by one
and through ``generate`` — and check where it must not fire.
"""

from __future__ import annotations

import pytest

import polydat
import polydat.testing as pt

SOURCE = """
input key: u64
extern salt: u64
h := hash(key ^ 77)
first := first_names_all(h)
greeting := "{first} {last_names(key)}"
again := "{first}.{last_names(key)}@{city_names(hash(key))}"
padded := printf("[{:>4}|{:<10}|{:05}]", state_codes(key), street_suffixes(hash(key ^ salt)), key)
const fixed := company_words(salt)
frozen := "{fixed} {company_suffixes(key)}"
nested := printf("<{}|{}>", printf("{}.{}", str_lower(first_names_all(h)), zero_pad_u64(key, 7)), str_lower(street_names(key)))
"""

OUTPUTS = ["first", "greeting", "again", "padded", "frozen", "nested"]


def _fired(prog: polydat.Program) -> list[str]:
    return [e["message"] for e in prog.events if e["message"].startswith("printf_word_picks")]


def test_the_rewrite_fires_and_leaves_a_read_pick_in_place() -> None:
    prog = polydat.compile(SOURCE)
    fired = _fired(prog)
    assert len(fired) == 5, fired  # greeting, again, padded, frozen, nested
    # The nested printf is spliced into its reader, the padding becomes a
    # placeholder's, and the lowered names are picked from lowered lists.
    nested = [f for f in fired if "str_lower(" in f]
    assert nested and nested[0].endswith(
        '"<{}.{:07}|{}>", "str_lower(first_names_all),,str_lower(street_names)")'), nested
    messages = [e["message"] for e in prog.events]
    assert any(m.startswith("printf_of_printf") for m in messages) and any(m.startswith("printf_zero_pad") for m in messages)
    # `first` is an output as well as a printed part: it stays a step.
    ops = [s["op"] for s in prog.explain_data()["steps"]]
    assert "first_names_all" in ops
    assert "last_names" not in ops and "city_names" not in ops and "state_codes" not in ops
    # The `const` capture is read as itself, not picked again (its value is fixed at scope init).
    assert any(f.endswith('__printf_words(fixed, key, "{} {}", ",company_suffixes")') for f in fired), fired
    assert "company_words" in ops
    assert _fired(polydat.compile(SOURCE, fusion=False)) == []


def test_every_engine_agrees_with_the_unfused_program_row_by_row() -> None:
    steps = [pt.Step(write={"key": k, "salt": s}) for k in pt.U64_CORNERS for s in (0, 5)]
    pt.assert_engines_agree(SOURCE, steps, engines=pt.engines(include_variants=True))


@pytest.mark.parametrize("threads", [1, 2])
def test_generate_agrees_with_the_unfused_program(threads: int) -> None:
    want = polydat.compile(SOURCE, engine="p1", fusion=False).generate(
        range(5000), inputs={"salt": 3}, outputs=OUTPUTS, format="arrow")
    for engine in ("p1", "p2", "p3", "mixed", "auto"):
        for provenance in ("raw", "pull") if engine in ("p2", "p3") else ("auto",):
            prog = polydat.compile(SOURCE, engine=engine, provenance=provenance)
            got = prog.generate(range(5000), inputs={"salt": 3}, outputs=OUTPUTS, format="arrow", threads=threads)
            assert got.equals(want), f"{engine}/{provenance} x{threads}"


def test_the_size_limit_fails_the_fused_and_unfused_programs_alike() -> None:
    source = 'input key: u64\nout := "{last_names(key)} and {city_names(key)}"'
    before = polydat.max_value_bytes()
    try:
        polydat.set_max_value_bytes(12)
        failures = set()
        for fusion in (True, False):
            for engine in ("p1", "p2", "p3"):
                with pytest.raises(polydat.PolydatError) as err:
                    polydat.compile(source, engine=engine, fusion=fusion).generate(range(100))
                # The message and the node it names (the fused node reports as
                # the `printf` the user wrote); the inputs line shows each
                # program's own wires.
                failures.add(tuple(str(err.value).splitlines()[:2]))
        assert len(failures) == 1, failures
        message, node = failures.pop()
        assert "exceeds the limit of 12 bytes" in message
        assert "in node `printf` (output out)" in node
    finally:
        polydat.set_max_value_bytes(before)


def test_a_direct_call_with_an_unknown_list_is_a_clear_error() -> None:
    with pytest.raises(polydat.CompileError, match="`nope` is not a word-list node"):
        polydat.compile('input key: u64\nout := __printf_words("{}", "nope", key)')


# Weighted picks (`weighted_strings`) printed into sentences, as word lists
# of a text grammar are: spec separators of both kinds, a value with
# parentheses, a pick read elsewhere too, nested sentences spliced into one.
WEIGHTED = """
input key: u64
adjective(h: u64) -> (w: str) := {
    w := weighted_strings(h, "sly:1;bold:3, (quiet):2")
}
noun(h: u64) -> (w: str) := {
    w := weighted_strings(h, "foxes:40,ideas:1;pinto beans:5")
}
stop(h: u64) -> (w: str) := {
    w := weighted_strings(h, ".:50;?:1;--:1")
}
sentence(k: u64) -> (text: str) := {
    h := hash(k)
    text := "{adjective(hash(h + 1))} {noun(hash(h + 2))}{stop(hash(h + 3))}"
}
mood := adjective(hash(key ^ 9))
said := "{mood} {noun(key)}: {sentence(key)} {sentence(key ^ 77)}"
padded := printf("[{:>8}|{:<6}]", noun(hash(key)), adjective(key))
"""

WEIGHTED_OUTPUTS = ["mood", "said", "padded"]


def test_weighted_picks_are_picked_where_they_are_printed() -> None:
    prog = polydat.compile(WEIGHTED)
    fired = _fired(prog)
    assert len(fired) == 2, fired  # said (its sentences spliced in), padded
    said = [f for f in fired if "__printf_words(" in f and "sentence" not in f]
    assert any("weighted_strings(foxes:40;ideas:1;pinto beans:5)" in f for f in said), said
    assert any("weighted_strings(sly:1;bold:3; (quiet):2)" in f for f in said), said
    ops = [s["op"] for s in prog.explain_data()["steps"]]
    # `mood` is an output as well as a printed part: its pick stays a step; no other does.
    assert ops.count("weighted_strings") == 1, ops
    assert ops.count("__printf_words") == 2, ops


def test_a_weighted_pick_with_a_bad_spec_fails_as_itself() -> None:
    # Not fused: the error names the weighted_strings node the user wrote.
    with pytest.raises(polydat.CompileError) as err:
        polydat.compile('input key: u64\nw := weighted_strings(key, "a:1;b")\nout := "{w}!"')
    assert "expected 'value:weight', got 'b'" in str(err.value)
    assert "weighted_strings" in str(err.value)


# A locale's city, region and plain list entries printed into a line, as
# `full_address` prints its city and region: picked where they are printed.
# A postcode and a list with placeholders (fr_FR's phone) are filled in,
# not picked, and stay steps; so does a pick something else reads.
LOCALE = """
input key: u64
row := hash(key ^ 5)
region := locale_places(row, "ja_JP", "region")
address := printf("{}, {} {}", locale_places(row, "en_US", "city"), locale_places(row, "en_US", "region"), locale_places(row, "en_US", "postcode"))
seen := printf("{} / {:>12}", region, locale_places(key, "de_DE", "city"))
names := printf("{} {} ({})", locale_words(key, "de_DE", "first_female"), locale_words(hash(key), "it_IT", "last"), locale_words(key, "fr_FR", "phone"))
"""

LOCALE_OUTPUTS = ["region", "address", "seen", "names"]


def test_locale_picks_are_picked_where_they_are_printed() -> None:
    prog = polydat.compile(LOCALE)
    fired = _fired(prog)
    assert len(fired) == 3, fired  # address, seen, names
    entries = ",".join(fired)
    for entry in ("locale_places(en_US;city)", "locale_places(en_US;region)", "locale_places(ja_JP;region)",
                  "locale_places(de_DE;city)", "locale_words(de_DE;first_female)", "locale_words(it_IT;last)"):
        assert entry in entries, (entry, fired)
    assert "postcode" not in entries and "fr_FR" not in entries, fired
    ops = [s["op"] for s in prog.explain_data()["steps"]]
    # Left as steps: `region` (an output too), the postcode and fr_FR's phone.
    assert ops.count("locale_places") == 2 and ops.count("locale_words") == 1, ops
    assert _fired(polydat.compile(LOCALE, fusion=False)) == []


# Text maps over picks (an email's lowered, stripped names; an `if`
# between two lists, as a locale's first name is), made once on the lists
# when the program is built: read elsewhere too, nested in a sentence,
# a capture group's replacement holding an entry's separators.
MAPPED = """
input key: u64
h := hash(key ^ 5)
given := if hash(key ^ 9) % 2 == 0 { locale_words(h, "de_DE", "first_female") } else { locale_words(h, "de_DE", "first_male") }
strip(name: str) -> (text: str) := {
    text := regex_replace(str_lower(name), "[ ']", "")
}
login := printf("{}.{}@{}", strip(given), strip(locale_words(key, "fr_FR", "last")), str_upper(city_names(key)))
shout := str_upper(locale_places(hash(key), "ja_JP", "city"))
swapped := regex_replace(street_names(key), "(\\w+) (\\w+)", "$2, $1;%(")
seen := str_lower(last_names(key))
again := "{seen}/{str_lower(first_names_all(seen_key))}"
seen_key := hash(key)
"""

MAPPED_OUTPUTS = ["given", "login", "shout", "swapped", "seen", "again"]


def test_text_maps_over_picks_are_applied_to_the_lists() -> None:
    prog = polydat.compile(MAPPED)
    rules = [e["message"].split(":")[0] for e in prog.events if e["kind"] == "FusionApplied"]
    for rule in ("select_of_picks", "str_lower_of_pick", "str_upper_of_pick", "regex_replace_of_pick"):
        assert rule in rules, (rule, rules)
    ops = [s["op"] for s in prog.explain_data()["steps"]]
    # No map is left to run at each row, nor a pick under one.
    for op in ("str_lower", "str_upper", "regex_replace", "select_str", "locale_words", "last_names"):
        assert op not in ops, (op, ops)
    # `given` (an output) is a choice between two lists, and `login` makes
    # the same choice between the two lists mapped at build.
    assert ops.count("__pick_either") == 2 and "__pick_entry" in ops, ops
    # A lowered or raised pick is printed in place; one through
    # `regex_replace` (which checks the size limit at each row) is a step.
    assert "str_upper(city_names)" in ",".join(_fired(prog))
    messages = ",".join(e["message"] for e in prog.events)
    assert 'regex_replace(str_lower(locale_words(fr_FR;last));[ \'];)' in messages, messages


def test_a_choice_whose_branch_can_fail_is_not_fused() -> None:
    # The branch not taken is not evaluated: its division by zero must not
    # fail the row, so the two picks stay under the select.
    source = """
input key: u64
out := if key % 2 == 0 { last_names(100 / (key % 3)) } else { first_names_all(key) }
"""
    prog = polydat.compile(source)
    assert not any(e["message"].startswith("select_of_picks") for e in prog.events)
    want = polydat.compile(source, fusion=False).generate(range(1, 40, 2), format="arrow")
    assert prog.generate(range(1, 40, 2), format="arrow").equals(want)


def test_the_size_limit_fails_a_mapped_pick_as_the_map() -> None:
    # regex_replace checks its text against the limit, str_lower does not:
    # the fused pick fails the rows the maps fail, and only those.
    source = 'input key: u64\nout := str_lower(regex_replace(last_names(key), "^(...).*", "$1$1"))'
    before = polydat.max_value_bytes()
    try:
        polydat.set_max_value_bytes(5)
        for fusion in (True, False):
            for engine in ("p1", "p2", "p3"):
                prog = polydat.compile(source, engine=engine, fusion=fusion)
                with pytest.raises(polydat.PolydatError, match="exceeds the limit of 5 bytes"):
                    prog.generate(range(100))
        polydat.set_max_value_bytes(6)
        want = polydat.compile(source, fusion=False).generate(range(2000), format="arrow")
        assert polydat.compile(source).generate(range(2000), format="arrow").equals(want)
    finally:
        polydat.set_max_value_bytes(before)


# The fused programs of this file: a weighted pick's, a locale pick's and mapped picks'.
FUSED_PROGRAMS = [pytest.param("WEIGHTED", id="weighted"), pytest.param("LOCALE", id="locale"),
                  pytest.param("MAPPED", id="mapped")]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("name", FUSED_PROGRAMS)
def test_fused_picks_generate_what_the_unfused_program_does(name: str, threads: int) -> None:
    source, outputs = globals()[name], globals()[f"{name}_OUTPUTS"]
    want = polydat.compile(source, engine="p1", fusion=False).generate(range(5000), outputs=outputs, format="arrow")
    for engine in ("p1", "p2", "p3", "mixed", "auto"):
        for provenance in ("raw", "pull") if engine in ("p2", "p3") else ("auto",):
            prog = polydat.compile(source, engine=engine, provenance=provenance)
            got = prog.generate(range(5000), outputs=outputs, format="arrow", threads=threads)
            assert got.equals(want), f"{engine}/{provenance} x{threads}"


@pytest.mark.parametrize("name", FUSED_PROGRAMS)
def test_fused_picks_agree_on_every_engine_row_by_row(name: str) -> None:
    steps = [pt.Step(write={"key": k}) for k in pt.U64_CORNERS]
    pt.assert_engines_agree(globals()[name], steps, engines=pt.engines(include_variants=True))


def test_a_direct_call_with_an_unknown_locale_pick_is_a_clear_error() -> None:
    with pytest.raises(polydat.CompileError, match="is not a word-list node or a locale pick printed as it is"):
        polydat.compile('input key: u64\nout := __printf_words("{}", "locale_places(en_US;postcode)", key)')
