"""The generated call entries of bound Go functions (gopyfast.py) against gopy's
call path, which each entry holds as its __self__: for every parameter and
result kind tests/gopkg has, the same results, the same exception types and
messages, and the same effect on memory (a bad input changes nothing)."""
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import _fast  # noqa: E402

FAST = os.environ.get("MEMVIEW_GOPY_PATH") != "1"
needs_fast = pytest.mark.skipif(not FAST, reason="MEMVIEW_GOPY_PATH=1: gopy's call path only")


def outcome(fn, *args, **kwargs):
    """("ok", result) or ("raise", exception type, message) of one call."""
    try:
        return ("ok", fn(*args, **kwargs))
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return ("raise", type(e), str(e))


def same(name, make_args, kwargs=None):
    """Call gopkg.name through its entry and through gopy's path, each on
    fresh arguments from make_args(); the outcomes and the arguments after
    the call must agree."""
    fn = getattr(gopkg, name)
    slow = fn.__self__ if isinstance(fn, types.BuiltinFunctionType) else fn
    a1, a2 = make_args(), make_args()
    r1, r2 = outcome(fn, *a1, **(kwargs or {})), outcome(slow, *a2, **(kwargs or {}))
    assert r1 == r2, (name, a1)
    for x, y in zip(a1, a2):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
    return r1


SCALARS = {
    "EchoInt8": [0, 127, -128, 128, -129, True, 1.5, "1", None, np.int8(3), 2**70],
    "EchoInt16": [0, 2**15 - 1, 2**15, -(2**15) - 1],
    "EchoInt32": [2**31 - 1, 2**31],
    "EchoInt64": [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**40],
    "EchoInt": [-1, 2**63],
    "EchoRune": [65, 2**31],
    "EchoUint8": [0, 255, 256, -1, False],
    "EchoByte": [7, 300],
    "EchoUint16": [2**16 - 1, 2**16],
    "EchoUint32": [2**32 - 1, 2**32, -1],
    "EchoUint64": [2**64 - 1, 2**64, 2**63, -1],
    "EchoUint": [2**64 - 1, -5],
    "EchoUintptr": [2**64 - 1, 2**64],
    "EchoFloat64": [1.5, 1, -0.0, float("inf"), "x", 10**400, np.float32(0.25), None],
    "EchoFloat32": [1.5, 1e300, 2**-200, "y"],
    "EchoBool": [True, False, 0, 3, [], [1], "", np.array([1, 2]), None],
    "EchoString": ["", "héllo", "a\0b", "\ud800", b"bytes", 5],
    "StringLen": ["héllo", "日本"],
}


@needs_fast
def test_entries_cover_the_functions_they_should():
    for name in ["EchoInt8", "EchoString", "EchoBool", "Len", "Dot", "IncBytes", "Describe", "Fill", "Fail",
                 "FailValue", "Panic", "PanicIndex", "PutUint8", "Offset", "Nap", "Float64s", "BoxN", "NewAcc",
                 "KeepSlice"]:
        assert type(getattr(gopkg, name)).__name__ == "builtin_function_or_method", name
    # what keeps gopy's path is named, with the reason
    assert "callback" in _fast.GOPY["gopkg.ApplyInt"]
    assert "result of Go type" in _fast.GOPY["gopkg.Owned"]
    assert "variadic" in _fast.GOPY["gopkg.CountBoxes"]
    assert type(gopkg.ApplyInt).__name__ == "function"


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalars_and_strings(name):
    for v in SCALARS[name]:
        same(name, lambda v=v: (v,))
        same(name, lambda: (), {"v": v})


def test_wrong_calls():
    for args, kwargs in [((), {}), ((1, 2), {}), ((), {"w": 1}), ((1,), {"v": 1}), ((), {"v": 1, "goRun": 1})]:
        same("EchoInt", lambda args=args: args, kwargs)


SLICE_ARGS = [
    lambda dt: np.arange(4).astype(dt),
    lambda dt: np.zeros(0, dtype=dt),
    lambda dt: np.arange(6).astype(dt)[::2],  # not contiguous
    lambda dt: np.arange(4).astype(dt).reshape(2, 2),  # 2-d, contiguous
    lambda dt: ro(np.arange(3).astype(dt)),  # read-only
    lambda dt: np.arange(3, dtype=np.float32 if dt != np.float32 else np.float64),  # another dtype
    lambda dt: mv.asarray(np.arange(3).astype(dt)),
    lambda dt: [1, 2],
]  # None is a nil slice on the entry's path (test_gopy_results.py)


def ro(x):
    x.flags.writeable = False
    return x


INCS = [("IncBools", np.bool_), ("IncInt8s", np.int8), ("IncInt16s", np.int16), ("IncInt32s", np.int32),
        ("IncInt64s", np.int64), ("IncInts", np.int64), ("IncUint8s", np.uint8), ("IncUint16s", np.uint16),
        ("IncUint32s", np.uint32), ("IncUint64s", np.uint64), ("IncUints", np.uint64),
        ("IncFloat32s", np.float32), ("IncFloat64s", np.float64), ("IncComplex64s", np.complex64),
        ("IncComplex128s", np.complex128), ("IncBytes", np.uint8), ("IncRunes", np.int32)]


@pytest.mark.parametrize("name,dt", INCS)
def test_every_slice_type(name, dt):
    for make in SLICE_ARGS:
        same(name, lambda make=make: (make(dt),))
    same(name, lambda: (), {"x": np.arange(3).astype(dt)})


def test_bytearray_and_memview_arrays():
    same("IncBytes", lambda: (bytearray(b"abc"),))
    a = mv.zeros(3, dtype="uint8")
    gopkg.IncBytes(a)
    assert a.tolist() == [1, 1, 1]
    same("IncBytes", lambda: (b"abc",))  # read-only


def test_slices_with_other_parameters():
    for n in [3, 4]:
        same("Dot", lambda n=n: (np.arange(3.0), np.arange(float(n))))
    for i, v in [(0, 9), (5, 1), (-1, 1), (0, 256), (0, "x")]:
        same("PutUint8", lambda i=i, v=v: (np.zeros(3, np.uint8), i, v))
    same("Len", lambda: (np.zeros(5),))
    same("Offset", lambda: (np.arange(3.0), 0.5))  # type Readings = []float64


def test_arrays():
    y = np.arange(12.0)
    for make in [lambda: y.reshape(3, 4)[:, ::-2], lambda: ro(np.arange(3.0)), lambda: np.arange(4, dtype=np.int32),
                 lambda: np.zeros((0, 3)), lambda: mv.arange(4, dtype="float64")[::2], lambda: "x"]:
        same("Describe", lambda make=make: (make(),))
        same("Fill", lambda make=make: (make(), 2.5))
        same("PanicIndex", lambda make=make: (make(),))
    same("Fill", lambda: (np.arange(3.0), "x"))


def test_errors_and_panics():
    for kind in ["type", "index", "invalid", "readonly", "exported", "nomemory", "plain"]:
        assert same("Fail", lambda kind=kind: (kind,))[0] == "raise"
    assert same("Fail", lambda: (None,))[0] == "raise"
    assert same("FailValue", lambda: (True,))[0] == "raise"
    assert same("FailValue", lambda: (False,)) == ("ok", 1.5)
    assert same("Panic", lambda: ("boom",))[:2] == ("raise", RuntimeError)
    assert same("PanicValue", lambda: ("boom",))[:2] == ("raise", RuntimeError)


def test_go_run_takes_gopy_path():
    gopkg.Nap(1, goRun=True)
    gopkg.Nap(1)
    same("IncFloat64s", lambda: (np.zeros(2),), {"goRun": True})  # lent memory: refused on gopy's path


@needs_fast
def test_named_slice_parameter():
    # type Samples []float64: a NumPy array on the entry's path (gopy's path
    # takes only a gopy Samples there), and gopy's own Samples still
    assert gopkg.SumSamples(np.arange(4.0)) == 6.0
    assert gopkg.SumSamples(gopkg.NamedSamples(4)) == 6.0
    assert gopkg.SumSamples(ro(np.arange(4.0))) == 6.0  # Go only reads it (proven)
    with pytest.raises(TypeError, match="gopy object"):
        gopkg.SumSamples(np.arange(6.0)[::2])  # what the entry leaves to gopy's path


MAKERS = ["Bools", "Int8s", "Int16s", "Int32s", "Int64s", "Ints", "Uint8s", "Uint16s", "Uint32s", "Uint64s",
          "Uints", "Float32s", "Float64s", "Complex64s", "Complex128s", "Bytes", "Runes"]


@pytest.mark.parametrize("name", MAKERS)
def test_go_slice_results(name):
    fn = getattr(gopkg, name)
    slow = fn.__self__ if isinstance(fn, types.BuiltinFunctionType) else fn
    for n in [0, 5]:
        x, y = fn(n), slow(n)
        # a memview array over the Go slice on the entry's path, gopy's class of it on gopy's
        assert type(x) is (mv.Array if FAST else type(y)) and not x.readonly if FAST else True
        assert mv.asarray(x).tolist() == mv.asarray(y).tolist() and mv.asarray(x).dtype == mv.asarray(y).dtype
    assert outcome(fn, -1)[:2] == outcome(slow, -1)[:2]  # a Go panic (makeslice)
    assert outcome(fn, "x") == outcome(slow, "x")


def test_gopy_objects_by_handle():
    box = gopkg.NewBox(3)
    assert same("BoxN", lambda: (box,)) == ("ok", 3)
    for bad in [None, 3, "x", gopkg.NewCount(), np.zeros(2)]:
        assert same("BoxN", lambda bad=bad: (bad,))[0] == "raise"
    same("BoxN", lambda: (), {"b": box})


def test_gopy_object_results():
    fn = gopkg.NewBox
    slow = fn.__self__ if isinstance(fn, types.BuiltinFunctionType) else fn
    a, b = fn(4), slow(4)
    assert type(a) is type(b) is gopkg.Box and gopkg.BoxN(a) == gopkg.BoxN(b) == 4
    assert type(gopkg.NewAcc()) is gopkg.Acc
    import sigproc
    for n in [4, -1, 10**12, "x"]:
        r1, r2 = outcome(sigproc.NewSignal, n), outcome(getattr(sigproc.NewSignal, "__self__", sigproc.NewSignal), n)
        assert r1[0] == r2[0] and (r1[0] == "ok" and type(r1[1]) is type(r2[1]) or r1 == r2)


@needs_fast
def test_refcounts_come_back():
    x = np.arange(4.0)
    s = "héllo"
    before = sys.getrefcount(x), sys.getrefcount(s)
    for _ in range(100):
        gopkg.Len(x)
        gopkg.StringLen(s)
        gopkg.Describe(x)
        outcome(gopkg.Fill, ro(np.arange(2.0)), 1.0)
    assert (sys.getrefcount(x), sys.getrefcount(s)) == before


@needs_fast
def test_forked_child_raises():
    if sys.platform != "linux":
        pytest.skip("fork")
    code = ("import os, sys, numpy as np, memview, gopkg\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    try:\n"
            "        gopkg.Len(np.zeros(2))\n"
            "    except RuntimeError as e:\n"
            "        os._exit(0 if 'gopkg_Len' in str(e) and 'spawn' in str(e) else 2)\n"
            "    os._exit(1)\n"
            "_, st = os.waitpid(pid, 0)\n"
            "sys.exit(os.waitstatus_to_exitcode(st))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
