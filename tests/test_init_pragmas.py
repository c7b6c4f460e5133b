"""`init` bindings (the predecessor language's spelling of `const`, and
`init { ... }` blocks), const bindings in module bodies, and pragmas scoped
as upstream scopes them: a module body under its own pragmas only, a for
body under its program's and its own; `strict_values` refuses a constant
that makes a node fail on every evaluation."""

from __future__ import annotations

import pytest

import polydat
from polydat import CompileError

INIT = """
input cycle
init started = current_epoch_millis()
init scale = 1000
init {
    salt := hash(scale)
    offset := salt % 7
}
keygen(id: u64) -> (code: u64) := {
    init pepper = hash(11)
    code := mod(hash(id + pepper), 10000)
}
row := cycle * scale + offset
code := keygen(cycle)
"""


def test_init_bindings_are_computed_once_per_kernel() -> None:
    program = polydat.compile(INIT)
    kernel = program.kernel()
    kernel.set_inputs(cycle=2)
    first = kernel.pull("started")
    values = kernel.eval()
    assert values["scale"] == 1000 and values["salt"] == polydat.compile("x := hash(1000)").kernel().pull("x")
    assert values["row"] == 2000 + values["salt"] % 7
    kernel.set_inputs(cycle=3)
    assert kernel.pull("started") == first, "a capture: fixed for the kernel's life"
    assert kernel.pull("code") == polydat.compile("x := mod(hash(3 + hash(11)), 10000)").kernel().pull("x")


@pytest.mark.parametrize(
    "source, message",
    [
        ("input cycle\ninit x = cycle + 1", "const binding 'x' depends on coordinate input 'cycle'"),
        ("input cycle\ninit {\n  x := cycle\n}", "const binding 'x' depends on coordinate input 'cycle'"),
        ("init {\n  shared x := 1\n}", "'shared' inside an init block"),
        ("m(a: u64) -> (b: u64) := {\n  volatile b := a\n}\nx := m(1)", "modifiers other than const"),
    ],
)
def test_init_errors(source: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(source)
    assert message in info.value.message


def test_init_is_still_a_name_elsewhere() -> None:
    assert polydat.compile("init := 3\nx := init + 1").kernel().pull("x") == 4


MODULE_PRAGMA = """
checked(a: u64, n: u64) -> (out: u64) := {
    pragma strict_values
    out := mod(a, 0) + n
}
input cycle: u64
s := checked(cycle, 7)
"""


def test_a_modules_pragma_applies_to_its_own_bindings() -> None:
    with pytest.raises(CompileError) as info:
        polydat.compile(MODULE_PRAGMA)
    assert info.value.message.endswith("(refused under pragma strict_values)")
    assert (info.value.line, info.value.col) == (4, 12)
    # Without the pragma the same constant is a warning.
    (warning,) = polydat.compile(MODULE_PRAGMA.replace("pragma strict_values", "")).warnings
    assert "divisor K is 0" in warning.message


def test_pragmas_reach_nested_scopes_but_not_modules() -> None:
    host = """
    pragma strict_values
    input cycle
    unchecked(a: u64) -> (out: u64) := {
        out := mod(a, 0)
    }
    x := unchecked(cycle)
    """
    (warning,) = polydat.compile(host).warnings
    assert "divisor K is 0" in warning.message, "a host pragma does not reach into a module"
    with pytest.raises(CompileError):
        polydat.compile("pragma strict_values\ninput cycle\nx := mod(cycle, 0)")
    body = "input cycle\nfor k in 1..3 {\n    pragma strict_values\n    c := mod(k, 0)\n}\nb := mod(cycle, 0)"
    with pytest.raises(CompileError) as info:
        polydat.compile(body)
    assert info.value.line == 4, "the body's pragma covers the body, not the program around it"
    nested = "pragma strict_values\ninput cycle\nfor k in 1..3 {\n    c := mod(k, 0)\n}"
    with pytest.raises(CompileError) as info:
        polydat.compile(nested)
    assert info.value.line == 4, "an enclosing scope's pragma applies to its for bodies"


def test_unknown_pragmas_in_modules_warn_once() -> None:
    source = "m(a: u64) -> (b: u64) := {\n  pragma strcit\n  b := a\n}\ninput cycle\nx := m(cycle)\ny := m(cycle + 1)"
    (warning,) = polydat.compile(source).warnings
    assert warning.message == "unknown pragma 'strcit'" and (warning.line, warning.col) == (2, 10)
