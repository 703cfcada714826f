"""The machinery of the bad-input catalogue (tests/test_bad_inputs_*.py).

Each row of a catalogue is an expression a new user might type, the exception
it must raise (with a fragment of the message where the wording matters), and
the promise that nothing changed: every array, buffer and Go value in the
namespace holds the same bytes and metadata, the pools hold the same bytes and
allocations, and the same array handles and gopy handles are alive.

Rows that use a Go package built together with memview (sigproc, rgbimage,
tests/gopkg, or a namespace value made by one) skip, saying so, where the
extension was built without it (python3 build.py test builds them all).
"""
from __future__ import annotations

import ast
import gc
import importlib

import numpy as np
import pytest

import memview as mv
from memview._ext import _pyext
from memview._ext import go  # gopy's classes of Go slices, in every build


class Producer:
    """A made-up CUDA Array Interface producer (its pointer is never dereferenced)."""

    def __init__(self, **cai):
        self.__cuda_array_interface__ = cai


PTR = 0x7F00_0000_1000


def cai(**kw):
    """A valid interface dict, with kw replacing or (value ...) removing keys."""
    d = {"shape": (4,), "typestr": "<f4", "data": (PTR, False), "version": 3, "strides": None}
    for k, v in kw.items():
        if v is ...:
            d.pop(k, None)
        else:
            d[k] = v
    return Producer(**d)


# The Go packages rows may use, and the namespace values each package makes.
GO_PACKAGES = ("sigproc", "rgbimage", "gopkg")
GO_VALUES = {"im": "rgbimage", "sig": "sigproc", "gs": "gopkg"}


def _go_namespace() -> dict:
    """The bound Go packages built in, and Go values made by them."""
    built = mv.go_packages()
    ns = {name: importlib.import_module(name) for name in GO_PACKAGES if name in built}
    if "rgbimage" in ns:
        ns["im"] = ns["rgbimage"].New(4, 3)                   # a Go image lent through memview.Exporter
        ns["im"].SetPixel(1, 2, 10, 20, 30)
    if "sigproc" in ns:
        ns["sig"] = ns["sigproc"].NewSignal(5)                # a Go exporter of float64 samples
    if "gopkg" in ns:
        make = ns["gopkg"].Float64s
        make = getattr(make, "__self__", make)                # the entry's gopy path (memview's wrapper),
        make = getattr(make, "__wrapped__", make)             # and gopy's own function within it
        ns["gs"] = make(4)                                    # a Go []float64, as gopy hands it over
    return ns


def needs(source: str) -> list[str]:
    """The Go packages source uses (by name, or through a Go value of the
    namespace) that are not built in."""
    names = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    used = {n for n in names if n in GO_PACKAGES} | {GO_VALUES[n] for n in names if n in GO_VALUES}
    return sorted(used - set(mv.go_packages()))


def namespace() -> dict:
    """Fresh arrays and objects for one row."""
    a = mv.arange(12.0).reshape(3, 4)
    n = np.arange(6.0)
    ba = bytearray(b"abcdefgh")
    ns = {
        "mv": mv, "np": np, "go": go, "Producer": Producer, "cai": cai, "PTR": PTR,
        "a": a,                                    # float64 (3, 4), Go-owned
        "i8": mv.full(3, 7, "int8"),
        "u8": mv.arange(4, dtype="uint8"),
        "b": mv.full(2, True),
        "c": mv.full(2, 1 + 2j),
        "e": mv.zeros(0),
        "z": mv.full((), 5.0),
        "r": mv.zeros(2, "T{<i:a:<d:b:}"),          # records
        "s": mv.zeros(2, "3s"),                     # byte strings
        "sub": mv.zeros(2, "(2,3)f"),               # sub-arrays
        "big": mv.full(3, 1.5, ">f8"),              # byte-swapped
        "ro": mv.from_buffer(b"\x01\x02\x03\x04"),  # read-only import
        "n": n, "nv": mv.from_buffer(n),            # NumPy memory and a view of it
        "ba": ba, "bv": mv.from_buffer(ba),
        "t": a.T,                                   # non-contiguous view
        "rof": mv.from_buffer(memoryview(np.arange(3.0)).toreadonly()),  # read-only float64
        "u8n": np.arange(3, dtype=np.uint8),        # NumPy uint8 memory Go may be lent
    }
    ns.update(_go_namespace())
    rel = mv.zeros(3)
    rel.release()
    ns["rel"] = rel
    return ns


def _array_state(v):
    if v.released:
        return ("released",)
    meta = (v.shape, v.strides, v.dtype, v.format, v.readonly, v.device)
    if v.device != "cpu":
        return meta + (v.ptr,)
    with memoryview(v) as m:
        return meta + (m.tobytes(),)


def snapshot(ns: dict):
    """Everything a failed call must leave as it was."""
    pool = mv.default_pool()
    cuda = mv.cuda.pool_stats()
    state = {"pool": (pool.bytes_allocated, pool.num_live), "handles": mv.live_handles(),
             "cuda": (cuda["bytes_allocated"], cuda["num_live"]), "gopy handles": _pyext.NumHandles()}
    for k, v in ns.items():
        if isinstance(v, mv.Array):
            state[k] = _array_state(v)
        elif isinstance(v, np.ndarray):
            state[k] = (v.shape, v.dtype.str, v.tobytes())
        elif isinstance(v, (bytearray, bytes)):
            state[k] = bytes(v)
        elif isinstance(v, go.GoClass) and k in GO_VALUES:  # a Go value: the memory Go lends
            with mv.from_go(v, writable=False) as p:
                state[k] = (p.shape, p.tobytes())
    return state


def run_row(source: str, exc, match, ns: dict | None = None):
    """Evaluate source (an expression or a statement) in a fresh namespace; it
    must raise exc exactly (matching match) and change nothing."""
    ns = namespace() if ns is None else ns
    try:
        before = snapshot(ns)
        try:
            code = compile(source, "<row>", "eval")
        except SyntaxError:  # a statement (an assignment)
            code = compile(source, "<row>", "exec")
        with pytest.raises(exc, match=match) as info:
            eval(code, {"__builtins__": __builtins__}, ns)
        assert info.type is exc or exc is Exception, f"{source}: raised {info.type.__name__}, a subclass of {exc}"
        del info
        after = snapshot(ns)
        if after != before:  # garbage in a reference cycle may still hold memory: collect it
            gc.collect()
            after = snapshot(ns)
        changed = {k for k in before if before[k] != after.get(k)}
        assert not changed, f"{source}: changed {sorted(changed)}: {[(before[k], after.get(k)) for k in changed]}"
    finally:
        ns.clear()


def rows(table):
    """pytest params from (source, exception, match) rows, with the source as id;
    a row that needs a Go package not built in skips, naming it."""
    params = []
    for src, exc, match in table:
        missing = needs(src)
        marks = [pytest.mark.skip(reason=f"Go package {', '.join(missing)} not built in "
                                         "(python3 build.py test builds it with memview)")] if missing else []
        params.append(pytest.param(src, exc, match or None, id=src, marks=marks))
    return params
