"""Polydat: deterministic procedural data.

Write a small typed dataflow program; polydat compiles it into a kernel whose
named outputs are pure functions of an input coordinate::

    import polydat
    prog = polydat.compile('''
        input cycle: u64
        user_id := mod(hash(cycle), 1000000)
    ''')
    prog.generate(range(5))["user_id"]   # numpy array

See :func:`compile`, :class:`Program`, :class:`Kernel` and ``polydat.testing``.
"""

from __future__ import annotations

from .api import (
    Kernel,
    Program,
    catalog,
    check,
    compile,
    compile_file,
    max_value_bytes,
    set_max_value_bytes,
)
from .errors import (
    ArgumentError,
    BindError,
    CompileError,
    Diagnostic,
    EvalError,
    InternalError,
    OutOfMemoryError,
    PolydatError,
    RefusedError,
    UnknownNameError,
    WriteError,
)

from .workload import Workload

try:
    from importlib.metadata import version as _version

    __version__ = _version("polydat")
except Exception:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0"

__all__ = [
    "compile",
    "compile_file",
    "check",
    "catalog",
    "max_value_bytes",
    "set_max_value_bytes",
    "Program",
    "Kernel",
    "Workload",
    "PolydatError",
    "CompileError",
    "EvalError",
    "WriteError",
    "RefusedError",
    "BindError",
    "UnknownNameError",
    "ArgumentError",
    "InternalError",
    "OutOfMemoryError",
    "Diagnostic",
]
