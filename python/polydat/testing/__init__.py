"""Cross-engine equivalence testing for polydat programs.

P1, the interpreter, is the oracle; every other engine and provenance mode
must give the same outcomes bit for bit: the same values (f64 by its bits),
the same ``None``s and the same failure messages. This package lets the
project's suites, and anyone with a polydat program, check that::

    import polydat.testing as pt

    src = '''
    input cycle: u64
    bucket := mod(hash(cycle), 64)
    share := unit_interval(hash(bucket)) * 100.0
    label := "b{bucket}"
    '''
    pt.assert_engines_agree(src, pt.U64_CORNERS)        # every engine, every corner
    pt.assert_engines_agree(src, [5, 5, pt.Step(None, pulls=["label"])])

    table = pt.outcomes(src, [0, 1])    # {engine: EngineRun} with canonical observations
    table.refused()                     # engines that refused the program, with reasons

    # random programs (needs hypothesis):
    from hypothesis import given
    @given(pt.programs())
    def test_random(example):
        pt.assert_engines_agree(example.source, example.steps, example.pulls)

What is here:

* :func:`engines` — the engine matrix (discovered from the build, P1 first),
  :func:`register_engine` for test-only engines;
* :func:`outcomes`, :func:`assert_engines_agree` — run a script of writes and
  pulls on every engine and compare canonical outcomes (:mod:`.canon`);
* :data:`U64_CORNERS`, :data:`F64_CORNERS`, :data:`STR_CORNERS` — the
  standard corner inputs; :func:`node_cases` — one corner program per
  library node;
* :func:`assert_row`, :func:`assert_rows_equal` — a program's rows checked,
  a failure naming the program's content hash, the cycle and the
  ``polydat run`` command that prints the row (:mod:`.rows`; with the
  pytest plugin's fixtures, :mod:`.pytest_plugin`);
* :func:`programs` — a hypothesis strategy of random well-typed programs with
  input scripts; :func:`replay` — a failing example as a standalone DSL file
  (``python -m polydat.testing FILE`` re-checks it).
"""

from __future__ import annotations

from typing import Any

from .canon import Outcome, bits_f64, canonical, canonical_failure, f64_bits, strip_locations
from .corners import CANONICAL_NAN_BITS, F64_CORNERS, STR_CORNERS, U64_CORNERS, U64_MAX, corner_grid
from .matrix import (
    ORACLE,
    EngineSpec,
    compiler_variants,
    discovered_engine_names,
    engine_spec,
    engines,
    register_engine,
    registered_engine,
    unregister_engine,
)
from .nodes import NodeCase, NodeCaseError, library_nodes, node_case, node_cases
from .runner import (
    Disagreement,
    EngineRun,
    Observation,
    Outcomes,
    assert_engines_agree,
    captured_outputs,
    nondeterministic_outputs,
    outcomes,
    run_engine,
)
from .overrides import OVERRIDES, NodeOverride
from .replay_files import load_replay, replay, replay_text
from .rows import assert_row, assert_rows_equal, content_hash, reproduce_command, row_at
from .variants import generate_variant
from .script import EVAL, Example, Step, as_steps

__all__ = [
    # engines
    "ORACLE",
    "EngineSpec",
    "engines",
    "engine_spec",
    "compiler_variants",
    "generate_variant",
    "discovered_engine_names",
    "register_engine",
    "registered_engine",
    "unregister_engine",
    # outcomes
    "Outcome",
    "canonical",
    "canonical_failure",
    "strip_locations",
    "f64_bits",
    "bits_f64",
    "Observation",
    "EngineRun",
    "Disagreement",
    "Outcomes",
    "outcomes",
    "run_engine",
    "assert_engines_agree",
    "nondeterministic_outputs",
    "captured_outputs",
    # scripts
    "Step",
    "EVAL",
    "Example",
    "as_steps",
    # corners and node programs
    "U64_CORNERS",
    "F64_CORNERS",
    "CANONICAL_NAN_BITS",
    "STR_CORNERS",
    "U64_MAX",
    "corner_grid",
    "NodeCase",
    "NodeCaseError",
    "library_nodes",
    "node_case",
    "node_cases",
    "NodeOverride",
    "OVERRIDES",
    # rows of a program (the pytest plugin's assertions)
    "assert_row",
    "assert_rows_equal",
    "content_hash",
    "reproduce_command",
    "row_at",
    # random programs and replay
    "programs",
    "scripts",
    "replay",
    "replay_text",
    "load_replay",
]


def __getattr__(name: str) -> Any:
    # The hypothesis strategies load lazily: hypothesis is a test dependency.
    if name in ("programs", "scripts"):
        from . import strategies

        return getattr(strategies, name)
    raise AttributeError(f"module 'polydat.testing' has no attribute {name!r}")
