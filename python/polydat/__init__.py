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

import importlib
import os
from typing import TYPE_CHECKING, Any

# The compiled core allocates through mimalloc, which reads its settings
# when the core is loaded; a value the user set is kept.
# - It reserves address space an arena at a time. A 16 MiB arena (not its
#   1 GiB default) keeps the reserved space close to what is used, so a
#   limit on the address space (`RLIMIT_AS`) bounds what the core can
#   allocate.
# - It gives freed memory back to the kernel a while after it was freed.
#   Ten seconds (not one) keeps a column's memory for the next `generate`
#   of a script that does other work in between; given back, it would be
#   faulted in again page by page.
os.environ.setdefault("MIMALLOC_ARENA_RESERVE", "16MiB")
os.environ.setdefault("MIMALLOC_PURGE_DELAY", "10000")

from .errors import (
    ArgumentError,
    BindError,
    CompileError,
    ConcurrentUseError,
    Diagnostic,
    EvalError,
    InternalError,
    OutOfMemoryError,
    PolydatError,
    RefusedError,
    UnknownNameError,
    WriteError,
)

if TYPE_CHECKING:
    from .program import (
        Kernel,
        Program,
        catalog,
        check,
        compile,
        compile_file,
        max_value_bytes,
        set_max_value_bytes,
    )
    from .workload import Workload

    __version__: str

# The API (and numpy and the compiled core under it) is imported at first
# use, not with the package: `polydat` the command starts its Ctrl-C
# handling before the heavy imports, so Ctrl-C while it starts up is a
# one-line exit like at any other time.
_LAZY = {
    **{name: "program" for name in ("Kernel", "Program", "catalog", "check", "compile", "compile_file")},
    **{name: "program" for name in ("max_value_bytes", "set_max_value_bytes")},
    "Workload": "workload",
}


def __getattr__(name: str) -> Any:
    """The API's names, the package's modules and ``__version__``, imported at first use."""
    module = _LAZY.get(name)
    if name == "__version__":  # the core's: the version its wheel was built as
        value = importlib.import_module(".program", __name__).core_version()
    elif module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif not name.startswith("__"):
        try:
            value = importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


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
    "ConcurrentUseError",
    "Diagnostic",
]
