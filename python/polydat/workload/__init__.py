"""Workloads: scope chains from a YAML file, generating one table per phase.

::

    params:                 # the params scope: one const per parameter (overridable: -p users=500)
      users: 100
    bindings: |             # the workload scope (DSL), under the params
      shop := "polyshop"
    phases:                 # in order; each writes one table
      users:
        cycles: "{users}"   # rows: a count (or A..B), {name} read from the phase's scopes
        bindings: |         # the rows program, one row per cycle
          user_id := cycle
          name := full_name(user_id)
        emit: [user_id, name]
      orders:
        for_each: "user in 0..{users}"   # one iteration scope per tuple (see below)
        bindings: |
          order_count := 1 + mod(hash(user), 4)
          order_id := row_offset + cycle
          _spare := hash(order_id)       # a helper: no column (see "Columns")
        cycles: "{order_count}"
        emit: [order_id, user]

The chain is params → workload bindings → each phase's iteration scopes →
the phase's rows program. ``for_each`` is one comprehension (see
:mod:`polydat.dsl.comprehension`) or a list of levels, each a comprehension
or ``{each: "...", bindings: "..."}`` with bindings of that level's scope;
a level's ``{name}`` references read the enclosing scope. Every iteration
scope also binds ``ordinal`` (the position of its tuple among all the
tuples of its level in the phase, from 0) and ``row_offset`` (the rows the
phase wrote before it), so ids can be globally unique: the rows of a phase
are numbered ``row_offset + cycle``.

Columns. With ``emit``, a phase's columns are exactly the names it lists, in
its order (iteration variables, names of the rows program or of any scope
around it). Without ``emit``, they are the phase's iteration variables (every
level's names, first), then every binding of the rows program in source
order, except helpers: names starting with ``_``. Rows are a pure function of
the parameters, so a table is the same byte for byte on any number of threads.

Names. A name is given a value by a param, a binding of some scope, or an
iteration variable; the rows program's ``cycle`` (the row number) is the one
input of a workload. A name read but bound nowhere becomes an input, as in a
program, and since nothing in a workload can set it, it is refused (a program
would read 0 on every row): an error at its first use, with the "did you
mean" of the inferred-input warning. ``strict: true`` (a top-level key, or
``pragma strict`` in one block) compiles every scope in strict mode. Other
warnings (a module shadowing a bundled one, ...) are what :meth:`Workload.check`
and ``polydat check W.yaml`` report with the errors.

Positions. Every diagnostic points at the YAML file's own line and column: a
``bindings: |`` block's text keeps its lines and indentation, a one-line
value its column, and a name in ``emit:`` its list item.

In the core. A phase without ``for_each``, or with one level over a range of
numbers (``order in 0..{orders}``, no ``where``) whose rows ``cycles`` counts
(a count, ``A..B``, or ``{name}`` of an integer read per parent), runs in the
core with no kernel per scope (see :mod:`polydat.workload.native`): the same rows, in order, on
any number of threads. So does the nested form of one row per inner tuple,
a level ``k in 0..{n}`` under such a level (run as that level with
``cycles: "{n}"``: the inner ``k``, ``ordinal`` and ``row_offset`` are
``cycle``, ``row_offset + cycle`` and ``row_offset + cycle``; see
:class:`~polydat.workload.native.NativePhase` for the conditions). ``Workload.write(..., part=(i, n))`` writes part ``i``
of ``n`` of a table (its outermost tuples, or its cycles, cut into ``n``
contiguous runs); the parts, in order, hold the whole table, each as a file
of its own (a CSV part has the header).

The package: :mod:`~polydat.workload.model` reads the YAML file (the
:class:`Workload`, its :class:`Phase` s and :class:`Level` s, positions in
the file); :mod:`~polydat.workload.chain` compiles the scopes and walks a
phase's iterations; :mod:`~polydat.workload.native` runs a phase in the
core when it can; :mod:`~polydat.workload.output` writes a phase's table.
"""

from __future__ import annotations

from .model import Level, Phase, TextAt, Workload, WorkloadError, phase_name_problem

__all__ = ["Workload", "Phase", "Level", "WorkloadError", "TextAt", "phase_name_problem"]
