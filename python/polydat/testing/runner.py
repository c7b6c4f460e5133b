"""Running one script on every engine and comparing the outcomes with P1.

Usage::

    from polydat.testing import outcomes, assert_engines_agree, Step

    src = '''
    input cycle: u64
    user := mod(hash(cycle), 1000)
    score := unit_interval(hash(user)) * 100.0
    '''
    table = outcomes(src, [0, 1, 2**64 - 1])    # {engine name: EngineRun}
    table["p1"].observations[1]                 # Observation(step=0, action='write', ...)
    table.disagreements()                       # [] when every engine agrees
    table.refused()                             # {engine: message} for engines that refused

    assert_engines_agree(src, [0, 1, Step(None, pulls=["score"])])

Every engine compiles the program (an engine that raises ``RefusedError`` is
recorded as refused, not dropped), then runs the script on one kernel:
each step performs its write, optional ``invalidate_all()``, then its pulls.
Each action becomes an :class:`Observation` holding a canonical
:class:`~polydat.testing.canon.Outcome`; the oracle's (P1's) observations
are the expected ones. Outputs whose cone contains a nondeterministic node
(``counter``, ``current_epoch_millis``, ...) are pulled but only their type is
compared. In a program with a ``const`` capture of an input, engines that
rebuild their state for every step (``p1/fresh``, ``generate``) are not
compared on the captured outputs, nor on failures: a capture keeps what its
input was at the kernel's first read, and a capture that failed fails reads
outside its own cone.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .canon import Outcome, canonical, canonical_failure, type_only, without_output_attribution
from .matrix import ORACLE, EngineSpec, engines as default_engines
from .script import EVAL, Step, Write, apply_write, as_steps, describe_write, replay_text

__all__ = [
    "Observation",
    "EngineRun",
    "Disagreement",
    "Outcomes",
    "outcomes",
    "run_engine",
    "assert_engines_agree",
    "nondeterministic_outputs",
    "captured_outputs",
]

_PASS_THROUGH = (KeyboardInterrupt, SystemExit, GeneratorExit, MemoryError)
REPLAY_STEP_LIMIT = 40
"""Assertion messages embed a replay file when the script has at most this many steps."""


@dataclass(frozen=True)
class Observation:
    """One recorded action: ``step`` (-1 for compile), ``action``
    (``compile``/``write``/``invalidate``/``pull``/``eval``), ``target`` (the
    output pulled, or ``""``) and its canonical ``outcome``."""

    step: int
    action: str
    target: str
    outcome: Outcome

    def where(self) -> str:
        """``pull `x``` / ``compile`` / ... for messages."""
        if self.action == "pull":
            return f"pull `{self.target}`"
        return self.action


@dataclass
class EngineRun:
    """Everything one engine did with one program and script.

    ``status`` is ``ok`` (compiled and ran), ``refused`` (``RefusedError``
    at compile: ``refusal`` holds the message) or ``compile_error``.
    ``reported`` is the engine the program says it runs (``Program.engine``).
    """

    engine: EngineSpec
    status: str
    observations: list[Observation] = field(default_factory=list)
    refusal: str = ""
    reported: str | None = None

    @property
    def name(self) -> str:
        """The engine's matrix name."""
        return self.engine.name

    def values(self) -> list[tuple[int, str, str, Outcome]]:
        """The observations as plain ``(step, action, target, outcome)`` tuples."""
        return [(o.step, o.action, o.target, o.outcome) for o in self.observations]


@dataclass(frozen=True)
class Disagreement:
    """The first place an engine's observations differ from the oracle's."""

    engine: str
    oracle: str
    step: int
    write: Write
    where: str
    expected: Outcome | None
    actual: Outcome | None
    note: str = ""

    def __str__(self) -> str:
        at = "at compile" if self.step < 0 else f"at step {self.step} (write {describe_write(self.write)})"
        head = f"engine {self.engine} disagrees with {self.oracle} {at}, {self.where}"
        if self.note:
            head += f": {self.note}"
        width = max(len(self.engine), len(self.oracle)) + 1
        lines = [head]
        if self.expected is not None or self.actual is not None:
            lines.append(f"  {(self.oracle + ':').ljust(width)} {_indent(self.expected)}")
            lines.append(f"  {(self.engine + ':').ljust(width)} {_indent(self.actual)}")
        return "\n".join(lines)


def _without(outcome: Outcome, names: set[str]) -> Outcome:
    """An ``eval`` map without the entries of ``names`` (a failed eval stays as it is)."""
    if outcome.kind != "map":
        return outcome
    return Outcome("map", tuple((k, v) for k, v in outcome.data if k not in names))


def _indent(outcome: Outcome | None) -> str:
    text = "(nothing)" if outcome is None else outcome.describe()
    return text.replace("\n", "\n      ")


class Outcomes(Mapping[str, EngineRun]):
    """The runs of one program and script, by engine name (oracle first)."""

    def __init__(self, source: str, steps: list[Step], runs: list[EngineRun], captured: Iterable[str] = ()):
        self.source = source
        self.steps = steps
        self.captured = set(captured)
        """Outputs downstream of a ``const`` capture (see :func:`captured_outputs`)."""
        self._runs = {run.name: run for run in runs}

    def __getitem__(self, name: str) -> EngineRun:
        return self._runs[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._runs)

    def __len__(self) -> int:
        return len(self._runs)

    @property
    def oracle(self) -> EngineRun:
        """The oracle's run (P1's, or the first engine's when P1 is absent)."""
        return self._runs.get(ORACLE) or next(iter(self._runs.values()))

    def refused(self) -> dict[str, str]:
        """``{engine: message}`` for every engine that refused the program."""
        return {name: run.refusal for name, run in self._runs.items() if run.status == "refused"}

    def disagreements(self) -> list[Disagreement]:
        """The first disagreement of each engine with the oracle (empty when all agree)."""
        oracle = self.oracle
        found: list[Disagreement] = []
        if oracle.status == "refused":
            found.append(Disagreement(oracle.name, oracle.name, -1, None, "compile",
                                      None, None, f"the oracle refused the program: {oracle.refusal}"))
            return found
        for run in self._runs.values():
            if run is oracle:
                continue
            if run.status == "refused":
                continue
            if run.engine.reported is not None and run.reported is not None and run.reported != run.engine.reported:
                found.append(Disagreement(run.name, oracle.name, -1, None, "compile", None, None,
                                          f"asked for {run.engine.reported} but the program runs {run.reported}"))
                continue
            mismatch = self._first_mismatch(oracle, run)
            if mismatch is not None:
                found.append(mismatch)
        return found

    def _first_mismatch(self, oracle: EngineRun, run: EngineRun) -> Disagreement | None:
        for i in range(max(len(oracle.observations), len(run.observations))):
            want = oracle.observations[i] if i < len(oracle.observations) else None
            got = run.observations[i] if i < len(run.observations) else None
            same_place = want is not None and got is not None and (want.step, want.action, want.target) == (
                got.step, got.action, got.target)
            if same_place and self._same(run, want, got):  # type: ignore[arg-type]
                continue
            ref = want or got
            assert ref is not None
            write = self.steps[ref.step].write if 0 <= ref.step < len(self.steps) else None
            note = "" if same_place else "the engines performed different actions"
            if not same_place and got is not None and want is not None:
                where = f"{want.where()} vs {got.where()}"
            else:
                where = ref.where()
            return Disagreement(run.name, oracle.name, ref.step, write, where,
                                want.outcome if want else None, got.outcome if got else None, note)
        return None

    def _same(self, run: EngineRun, want: Observation, got: Observation) -> bool:
        if want.outcome == got.outcome:
            return True
        if run.engine.graph_as_written and without_output_attribution(want.outcome) == without_output_attribution(
                got.outcome):
            return True
        if not (self.captured and run.engine.rebuilds_state):
            return False
        # a capture holds whatever its input was at the kernel's first read (even None, or a
        # failure, which then fails reads well outside its cone), so an engine that rebuilds
        # its state is not compared on captured outputs, nor where either side failed
        if want.outcome.is_error or got.outcome.is_error:
            return True
        if want.action == "pull" and want.target in self.captured:
            return True
        if want.action == "eval":
            return _without(want.outcome, self.captured) == _without(got.outcome, self.captured)
        return False

    def summary(self) -> str:
        """One line per engine: status and observation count."""
        lines = []
        for name, run in self._runs.items():
            extra = f" ({run.refusal.splitlines()[0]})" if run.refusal else ""
            lines.append(f"{name}: {run.status}, {len(run.observations)} observations{extra}")
        return "\n".join(lines)


# -- nondeterminism ------------------------------------------------------------------


def _bound_ir(source: str) -> dict[str, Any] | None:
    from polydat import dsl

    try:
        return dict(dsl.bind(source).ir)
    except Exception:  # noqa: BLE001 - an unbindable program has no outputs to single out
        return None


def _reaches(nodes: list[dict[str, Any]], seed: Callable[[int], bool]) -> list[bool]:
    """For every node, whether its cone (itself included) holds a ``seed`` node."""
    result: list[bool | None] = [None] * len(nodes)
    for start in range(len(nodes)):
        stack: list[tuple[int, bool]] = [(start, False)]
        while stack:
            index, expanded = stack.pop()
            if result[index] is not None:
                continue
            ups = _upstream(nodes[index])
            if expanded:
                result[index] = seed(index) or any(result[j] for j in ups)
                continue
            stack.append((index, True))
            stack.extend((j, False) for j in ups if result[j] is None)
    return [bool(r) for r in result]


def _outputs_where(ir: Mapping[str, Any], flags: list[bool]) -> set[str]:
    found = set()
    for out in ir.get("outputs", []):
        node = _wire_node(out.get("wire"))
        if node is not None and flags[node]:
            found.add(out["name"])
    return found


def nondeterministic_outputs(source: str) -> set[str]:
    """Outputs of ``source`` whose cone contains a nondeterministic node.

    Found from the frontend's graph IR and the catalog's purity; empty when the
    source does not bind.
    """
    import polydat

    ir = _bound_ir(source)
    if ir is None:
        return set()
    impure = {n["name"] for n in polydat.catalog() if n.get("purity") == "nondeterministic"}
    nodes = ir.get("nodes", [])
    return _outputs_where(ir, _reaches(nodes, lambda i: nodes[i].get("op") in impure))


def captured_outputs(source: str) -> set[str]:
    """Outputs of ``source`` downstream of a ``const`` binding that reads an input.

    Such a const is a *capture*: it keeps the value it had when the kernel
    first evaluated it, so it depends on the kernel's history, not only on its
    current inputs. Engines that rebuild state for every step (``p1/fresh``,
    the ``generate`` variants) do not compare these outputs.
    """
    ir = _bound_ir(source)
    if ir is None:
        return set()
    nodes = ir.get("nodes", [])
    reads_input = _reaches(nodes, lambda i: any(
        isinstance(a, dict) and isinstance(a.get("wire"), dict) and "input" in a["wire"]
        for a in nodes[i].get("args", [])))
    captures = set()
    for out in ir.get("outputs", []):
        node = _wire_node(out.get("wire"))
        if node is not None and "const" in out.get("modifiers", []) and reads_input[node]:
            captures.add(node)
    if not captures:
        return set()
    return _outputs_where(ir, _reaches(nodes, lambda i: i in captures))


def _wire_node(wire: Any) -> int | None:
    if isinstance(wire, dict) and "node" in wire:
        return int(wire["node"]["node"])
    return None


def _upstream(node: Mapping[str, Any]) -> list[int]:
    found = []
    for arg in node.get("args", []):
        index = _wire_node(arg.get("wire")) if isinstance(arg, dict) else None
        if index is not None:
            found.append(index)
    return found


# -- running -------------------------------------------------------------------------


def _signature(program: Any) -> Outcome:
    types = getattr(program, "input_types", None)
    inputs = tuple(types.items()) if isinstance(types, Mapping) else tuple((n, "?") for n in program.inputs)
    return Outcome("program", (inputs, tuple(program.outputs.items())))


def _attempt(action: Any) -> Outcome:
    try:
        return canonical(action())
    except _PASS_THROUGH:
        raise
    except BaseException as err:  # noqa: BLE001 - pyo3 panics derive from BaseException
        return canonical_failure(err)


def _attempt_write(action: Any) -> Outcome:
    try:
        action()
    except _PASS_THROUGH:
        raise
    except BaseException as err:  # noqa: BLE001
        return canonical_failure(err)
    return Outcome("ok")


_PROGRAMS: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_PROGRAM_CACHE_SIZE = 64


def _compiled(spec: EngineSpec, source: str) -> Any:
    """``spec.compile(source)``, remembering the last few programs (they are
    immutable), so scripts over one fixed program compile it once per engine."""
    key = (spec.name, repr(sorted(dict(spec.options).items())), spec.compiler, source)
    program = _PROGRAMS.get(key)
    if program is None:
        program = spec.compile(source)
        _PROGRAMS[key] = program
        if len(_PROGRAMS) > _PROGRAM_CACHE_SIZE:
            _PROGRAMS.popitem(last=False)
    else:
        _PROGRAMS.move_to_end(key)
    return program


def _restore(kernel: Any, coordinates: Sequence[str], history: list[Write], state: dict[str, Any] | None) -> None:
    """Brings a fresh kernel to the inputs the previous steps left: from the
    last kernel's ``input_values()`` when it has them, else by replaying every write."""
    if state is not None:
        coords = {k: v for k, v in state.items() if k in coordinates}
        if coords:
            _attempt_write(lambda: kernel.set_inputs(**coords))
        for name, value in state.items():
            if name not in coords:
                _attempt_write(lambda n=name, v=value: kernel.set(n, v))
        return
    for earlier in history:
        _attempt_write(lambda w=earlier: apply_write(kernel, coordinates, w))


def run_engine(
    spec: EngineSpec,
    source: str,
    script: Iterable[Step | Write],
    pulls: Sequence[str] | None = None,
    nondeterministic: Iterable[str] = (),
) -> EngineRun:
    """Compiles ``source`` on one engine and runs ``script`` on it."""
    from polydat.errors import RefusedError

    steps = as_steps(script)
    excluded = set(nondeterministic)
    try:
        program = _compiled(spec, source)
    except RefusedError as err:
        return EngineRun(spec, "refused", refusal=str(err))
    except _PASS_THROUGH:
        raise
    except BaseException as err:  # noqa: BLE001
        return EngineRun(spec, "compile_error", [Observation(-1, "compile", "", canonical_failure(err))])
    run = EngineRun(spec, "ok", [Observation(-1, "compile", "", _signature(program))],
                    reported=getattr(program, "engine", None))
    coordinates = list(program.coordinates)
    default_pulls = list(pulls) if pulls is not None else list(program.outputs)
    kernel = program.kernel()
    history: list[Write] = []
    state: dict[str, Any] | None = None
    for index, step in enumerate(steps):
        if spec.fresh_kernels:
            kernel = program.kernel()
            _restore(kernel, coordinates, history, state)
        if step.write is not None:
            history.append(step.write)
            outcome = _attempt_write(lambda: apply_write(kernel, coordinates, step.write))
            run.observations.append(Observation(index, "write", "", outcome))
            if spec.fresh_kernels and hasattr(kernel, "input_values"):
                state = dict(kernel.input_values())
        if step.invalidate_all:
            run.observations.append(Observation(index, "invalidate", "", _attempt_write(kernel.invalidate_all)))
        for name in step.pulls if step.pulls is not None else default_pulls:
            if name == EVAL:
                outcome = _attempt(kernel.eval)
                if outcome.kind == "map" and excluded:
                    outcome = Outcome("map", tuple((k, type_only(v) if k in excluded else v) for k, v in outcome.data))
                run.observations.append(Observation(index, "eval", "", outcome))
                continue
            outcome = _attempt(lambda n=name: kernel.pull(n))
            if name in excluded:
                outcome = type_only(outcome)
            run.observations.append(Observation(index, "pull", name, outcome))
    return run


def outcomes(
    source: str,
    inputs_sequence: Iterable[Step | Write],
    pulls: Sequence[str] | None = None,
    engines: Sequence[EngineSpec] | None = None,
    *,
    nondeterministic: Iterable[str] | None = None,
) -> Outcomes:
    """Runs the script on every engine and records canonical outcomes.

    ``inputs_sequence`` is the script (see :mod:`polydat.testing.script`);
    ``pulls`` the outputs pulled after each write (default: every output in
    turn); ``engines`` the matrix (default: :func:`polydat.testing.engines`).
    ``nondeterministic`` names outputs compared by type only (default: found
    from the catalog's purity).
    """
    steps = as_steps(inputs_sequence)
    matrix = list(engines) if engines is not None else default_engines()
    excluded = nondeterministic_outputs(source) if nondeterministic is None else set(nondeterministic)
    runs = [run_engine(spec, source, steps, pulls, excluded) for spec in matrix]
    captured = captured_outputs(source) if any(s.rebuilds_state for s in matrix) else set()
    return Outcomes(source, steps, runs, captured)


def assert_engines_agree(
    source: str,
    inputs_sequence: Iterable[Step | Write],
    pulls: Sequence[str] | None = None,
    engines: Sequence[EngineSpec] | None = None,
    *,
    nondeterministic: Iterable[str] | None = None,
    allow_refused: bool = True,
    expect_compile: bool = True,
) -> Outcomes:
    """Like :func:`outcomes`, then raises ``AssertionError`` at the first disagreement.

    The message names the engine, the step and its write, the output and both
    outcomes, and (for short scripts) carries a standalone replay file.
    ``expect_compile`` re-raises the oracle's compile error (a program that
    does not compile is a mistake in the test, not an equivalence result);
    pass ``False`` to compare compile failures across engines instead.
    ``allow_refused=False`` also fails when an engine refused the program.
    """
    steps = as_steps(inputs_sequence)
    table = outcomes(source, steps, pulls, engines, nondeterministic=nondeterministic)
    oracle = table.oracle
    if expect_compile and oracle.status == "compile_error":
        spec = oracle.engine
        spec.compile(source)  # raises the real exception with its diagnostic
        raise AssertionError(f"the oracle failed to compile the program:\n{oracle.observations[0].outcome}")
    problems = table.disagreements()
    refused = table.refused()
    if not problems and (allow_refused or not refused):
        return table
    lines: list[str] = []
    if problems:
        lines.append(str(problems[0]))
        if len(problems) > 1:
            others = ", ".join(p.engine for p in problems[1:])
            lines.append(f"({len(problems)} engines disagree; also: {others})")
    if refused:
        lines.append("refused: " + "; ".join(f"{k}: {v.splitlines()[0] if v else ''}" for k, v in refused.items()))
    if len(steps) <= REPLAY_STEP_LIMIT:
        lines.append("replay file:\n" + replay_text(source, steps, pulls))
    else:
        lines.append(f"(script of {len(steps)} steps; polydat.testing.replay() writes a replay file)")
    raise AssertionError("\n".join(lines))
