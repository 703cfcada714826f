"""The generated call entries of bound Go methods (gopyfast.py), set on gopy's
classes as method descriptors, against gopy's path of each method (the
Python method gopy wrote, as memview wraps it): for every parameter and
result kind the methods of tests/gopkg have, the same results, the same
exception types and messages, the same memory kept alive with the receiver
or the Go value returned, and the same effect on the receiver and the
arguments (a bad input changes nothing)."""
import functools
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview import _gobind  # noqa: E402
from memview._ext import _fast  # noqa: E402

FAST = os.environ.get("MEMVIEW_GOPY_PATH") != "1"
needs_fast = pytest.mark.skipif(not FAST, reason="MEMVIEW_GOPY_PATH=1: gopy's call path only")


def gopy_path(cls, name):
    """gopy's path of method name of gopy's class cls (the method itself where
    it has no entry)."""
    return _gobind.GOPY_METHODS.get(f"gopkg.{cls.__name__}.{name}", cls.__dict__.get(name))


def norm(x):
    """A result as it can be compared: a gopy object by its class and what it
    holds, not by identity."""
    if isinstance(x, _gobind.GoClass):
        name = type(x).__name__
        if name.startswith("Slice_"):
            return "slice", mv.asarray(x).tolist()
        return name, getattr(x, "N", None)
    if isinstance(x, mv.Array):  # a Go slice on the entry's path
        return "slice", x.tolist()
    return x


def outcome(fn, *args, **kwargs):
    """("ok", result) or ("raise", exception type, message) of one call."""
    try:
        return ("ok", norm(fn(*args, **kwargs)))
    except Exception as e:  # noqa: BLE001 (the exception is what is compared)
        return ("raise", type(e), str(e))


def kept(owner, args):
    """What owner keeps alive (_memview_kept), with each object named by its
    place among args."""
    def place(x):
        if isinstance(x, tuple):
            return tuple(place(y) for y in x)
        return next(i for i, a in enumerate(args) if a is x)
    return {k: tuple(place(x) for x in v) for k, v in getattr(owner, "_memview_kept", {}).items()}


def state(obj, live=True):
    """A Tool's fields (not read through a handle gopy does not know: gopy's
    field getters abort the interpreter there)."""
    return (obj.Calls, obj.Name) if live and isinstance(obj, gopkg.Tool) else None


def same(make_obj, name, make_args, kwargs=None, cls=None, live=True):
    """Call method name of gopy's class cls (the receiver's own by default) on
    a fresh receiver through its entry and through gopy's path, each with
    fresh arguments from make_args(); the outcomes, the receivers after the
    call, what they keep and the arguments must agree."""
    o1, o2 = make_obj(), make_obj()
    cls = cls or type(o1)
    fast = getattr(cls, name)
    slow = gopy_path(cls, name)
    a1, a2 = make_args(), make_args()
    r1 = outcome(functools.partial(fast, o1), *a1, **(kwargs or {}))
    r2 = outcome(functools.partial(slow, o2), *a2, **(kwargs or {}))
    assert r1 == r2, (name, a1)
    assert state(o1, live) == state(o2, live), (name, a1)
    if isinstance(o1, _gobind.GoClass):
        kw = list((kwargs or {}).values())
        assert kept(o1, list(a1) + kw) == kept(o2, list(a2) + kw), (name, a1)
    for x, y in zip(a1, a2):
        if isinstance(x, np.ndarray):
            np.testing.assert_array_equal(x, y)
    return r1


def tool():
    return gopkg.NewTool("t")


def ro(x):
    x.flags.writeable = False
    return x


@needs_fast
def test_entries_cover_the_methods_they_should():
    for name in ["Mix", "Int8", "Upper", "Scale", "Bump", "SumSamples", "Describe", "Fill", "Ramp", "Box", "Merge",
                 "Keep", "Fail", "Checked", "Panic", "Label", "Nop"]:
        assert type(gopkg.Tool.__dict__[name]).__name__ == "method_descriptor", name
    for typ, name in [("Acc", "Add"), ("Acc", "AddArray"), ("Keeper", "Reset"), ("Box", "Add"), ("Count", "Next")]:
        assert type(getattr(gopkg, typ).__dict__[name]).__name__ == "method_descriptor", (typ, name)
    assert "Ramp" in _fast.METHODS["gopkg"]["Tool"]  # a memview array: no gopy class
    # what keeps gopy's path is named, with the reason
    assert "result of Go type" in _fast.GOPY["gopkg.ReadOnly.View"]
    # a promoted method, which gopy leaves out: the entry is its only path
    assert "gopkg.Special.Mix" in _fast.OWN and "gopkg.Special.Mix" not in _fast.GOPY
    assert "a method of an interface" in _fast.GOPY["gopkg.Shaper.Area"]
    assert type(gopkg.Square.__dict__["Area"]).__name__ == "method_descriptor"
    assert type(gopkg.ReadOnly.__dict__["View"]).__name__ == "function"
    # the entries keep gopy's docstrings (the Go doc comments)
    assert "Mix formats one argument of every scalar kind" in gopkg.Tool.Mix.__doc__
    assert "Len returns len(x)" in gopkg.Len.__doc__


MIX = [1, 2, 3, 4, 5, 65, 7, 8, 9, 10, 11, 12, 1.5, 2.5, True, "s"]
MIX_NAMES = ["a", "b", "c", "d", "e", "r", "f", "g", "h", "i", "j", "k", "x", "y", "ok", "s"]
# per argument of Mix, values its Go type takes and values it refuses
MIX_BAD = {0: [128, -129, True, 1.5, "1", None], 1: [2**15], 2: [2**31], 3: [2**63, -(2**63) - 1], 4: [10**40],
           5: [2**31], 6: [256, -1], 7: [2**16], 8: [2**32], 9: [2**64, -1], 10: [-5], 11: [2**64],
           12: [1e300, "x", None], 13: ["x", 10**400], 14: [[], [1], np.array([1, 2])], 15: [b"bytes", 5, "\ud800"]}


def test_every_scalar_kind():
    assert same(tool, "Mix", lambda: list(MIX))[0] == "ok"
    same(tool, "Mix", lambda: (), dict(zip(MIX_NAMES, MIX)))
    same(tool, "Mix", lambda: MIX[:8], dict(zip(MIX_NAMES[8:], MIX[8:])))
    for i, bad in MIX_BAD.items():
        for v in bad:
            same(tool, "Mix", lambda i=i, v=v: MIX[:i] + [v] + MIX[i + 1:])
    for name, values in [("Int8", [0, 127, 128, -129, True, "1"]), ("Uint64", [2**64 - 1, 2**64, -1]),
                         ("Float32", [1, 1e300, "y"]), ("Not", [0, 3, [], "", None]),
                         ("Upper", ["", "héllo", "a\0b", 5])]:
        for v in values:
            same(tool, name, lambda v=v: (v,))
            same(tool, name, lambda: (), {"v" if name != "Upper" else "s": v})


def test_wrong_calls():
    for args, kwargs in [((), {}), ((1, 2), {}), ((), {"w": 1}), ((1,), {"v": 1}), ((), {"v": 1, "goRun": 1})]:
        same(tool, "Int8", lambda args=args: args, kwargs)
    for kwargs in [{}, {"goRun": False}, {"goRun": True}, {"x": 1}]:
        same(tool, "Nop", lambda: (), kwargs)
    same(tool, "Nop", lambda: (1,))


SLICE_ARGS = [
    lambda: np.arange(4.0),
    lambda: np.zeros(0),
    lambda: np.arange(6.0)[::2],  # not contiguous
    lambda: np.arange(4.0).reshape(2, 2),
    lambda: ro(np.arange(3.0)),
    lambda: np.arange(3, dtype=np.float32),
    lambda: mv.asarray(np.arange(3.0)),
    lambda: bytearray(8),
    lambda: [1.0, 2.0],
]  # None is a nil slice on the entry's path (below)


def test_slices():
    for make in SLICE_ARGS:
        same(tool, "Scale", lambda make=make: (make(), 2.0))  # a store: read-only refused on both
        if make is not SLICE_ARGS[4]:  # read-only: copied for the call by the entry (inconclusive)
            same(tool, "Keep", lambda make=make: (make(),))
    same(tool, "Scale", lambda: (), {"x": np.arange(3.0), "f": 3.0})
    same(tool, "Scale", lambda: (np.arange(3.0), "x"))  # the slice, taken first, is given back
    same(tool, "Scale", lambda: (np.arange(3.0), 2.0), {"goRun": True})  # lent memory: refused on gopy's path
    for make in [lambda: bytearray(b"abc"), lambda: b"abc", lambda: np.arange(3, dtype=np.uint8),
                 lambda: mv.zeros(3, dtype="uint8"), lambda: np.arange(3, dtype=np.int8)]:
        same(tool, "Bump", lambda make=make: (make(),))


@needs_fast
def test_named_slice_parameter():
    # type Samples []float64: a NumPy array on the entry's path (gopy's path
    # takes only a gopy Samples there), and gopy's own Samples still
    t = gopkg.NewTool("t")
    assert t.SumSamples(np.arange(4.0)) == 6.0
    assert t.SumSamples(gopkg.NamedSamples(4)) == 6.0
    assert t.SumSamples(ro(np.arange(4.0))) == 6.0  # Go only reads it (proven)
    with pytest.raises(TypeError, match="gopy object"):
        t.SumSamples(np.arange(6.0)[::2])  # what the entry leaves to gopy's path


def test_arrays():
    y = np.arange(12.0)
    for make in [lambda: y.reshape(3, 4)[:, ::-2], lambda: ro(np.arange(3.0)), lambda: np.arange(4, dtype=np.int32),
                 lambda: np.zeros((0, 3)), lambda: mv.arange(4, dtype="float64")[::2], lambda: bytearray(16),
                 lambda: "x"]:
        same(tool, "Describe", lambda make=make: (make(),))
        same(tool, "Fill", lambda make=make: (make(), 2.5))
    same(tool, "Fill", lambda: (np.arange(3.0), "x"))


def test_go_values():
    for n in [0, 3, -1, "x"]:
        same(tool, "Ramp", lambda n=n: (n,))
        same(tool, "Box", lambda n=n: (n,))
    box = gopkg.NewBox(4)
    for b in [box, None, 3, gopkg.NewCount(), np.zeros(2)]:
        same(tool, "Merge", lambda b=b: (b,))
    same(tool, "Merge", lambda: (), {"b": box})
    same(lambda: gopkg.NewBox(2), "Add", lambda: (box,))
    same(lambda: gopkg.NewBox(2), "String", lambda: ())


def test_errors_and_panics():
    for kind in ["type", "index", "invalid", "readonly", "exported", "nomemory", "plain"]:
        assert same(tool, "Fail", lambda kind=kind: (kind,))[0] == "raise"
    assert same(tool, "Checked", lambda: (-1,))[0] == "raise"
    assert same(tool, "Checked", lambda: (5,)) == ("ok", 5)
    assert same(tool, "Panic", lambda: ("boom",))[:2] == ("raise", RuntimeError)
    same(gopkg.NewCount, "Next", lambda: ())


def test_value_receiver_and_embedding():
    assert same(tool, "Label", lambda: ()) == ("ok", "t/0")
    special = gopkg.NewSpecial("sp")
    if FAST:  # a promoted method gopy leaves out binds through its entry
        other = gopkg.NewSpecial("sp")
        assert other.Mix(1, 2, 3, 4, 5, 65, 6, 7, 8, 9, 10, 11, 1.5, 2.5, True, "s") == \
            "1 2 3 4 5 65 6 7 8 9 10 11 1.5 2.5 trues"  # fmt.Sprint: no space before a string
        assert other.Label() == "sp/1"
    # a gopy object of the embedding type, as the embedded one (gopy's Embed)
    assert same(lambda: gopkg.Tool(handle=special.handle), "Label", lambda: ()) == ("ok", "sp/0")


def test_interfaces():
    from memview._ext import _pyext
    made = []

    def shaper():
        # gopy's class of an interface has no __del__: its handles are given back below
        made.append(gopkg.AsShaper(2.0))
        return made[-1]

    # a method of an interface keeps gopy's path; the struct behind it has its entry
    assert shaper().Area() == 4.0
    sq = gopkg.Square(Side=3.0)
    assert same(lambda: sq, "Area", lambda: ()) == ("ok", 9.0)
    # the Go value behind a Shaper is a *Square: Square's method takes it
    assert same(shaper, "Area", lambda: (), cls=gopkg.Square) == ("ok", 4.0)
    for s in made:
        _pyext.DecRef(s.handle)


def test_wrong_receivers():
    box, acc = gopkg.NewBox(1), gopkg.NewAcc()
    for recv in [lambda: box, lambda: acc, lambda: 3, lambda: None, lambda: np.zeros(2)]:
        r = same(recv, "Int8", lambda: (1,), cls=gopkg.Tool)
        assert r[0] == "raise"
        r = same(recv, "Scale", lambda: (np.arange(3.0), 2.0), cls=gopkg.Tool)
        assert r[0] == "raise"
    assert "a *gopkg.Tool is needed here" in same(lambda: box, "Label", lambda: (), cls=gopkg.Tool)[2]


def test_stale_and_forged_handles():
    t = gopkg.NewTool("gone")
    h = t.handle
    del t
    gc.collect()
    for handle in [h, 10**9, 0, -1]:
        r = same(lambda handle=handle: gopkg.Tool(handle=handle), "Int8", lambda: (1,), live=False)
        assert r[:2] == ("raise", ValueError), r
        x = np.arange(3.0)
        r = same(lambda handle=handle: gopkg.Tool(handle=handle), "Scale", lambda x=x: (x, 2.0), live=False)
        assert r[:2] == ("raise", ValueError), r
        assert x.tolist() == [0.0, 1.0, 2.0]  # Go did not run
    # a handle that is no int of 64 bits: the entry hands the call to gopy's path
    t = gopkg.NewTool("t")
    good = t.handle
    for handle in ["1", 2**64, 1.5]:
        t.handle = handle
        assert outcome(t.Int8, 1) == outcome(gopy_path(gopkg.Tool, "Int8"), t, 1)
    t.handle = good


def test_bad_inputs_change_nothing():
    t = gopkg.NewTool("t")
    x = np.arange(3.0)
    t.Scale(x, 2.0)
    before = (t.Calls, dict(t._memview_kept), x.tolist())
    for bad in [lambda: t.Scale(ro(np.arange(3.0)), 2.0), lambda: t.Scale(np.arange(6.0)[::2], 2.0),
                lambda: t.Scale(np.arange(3, dtype=np.float32), 2.0), lambda: t.Scale(x, "2"),
                lambda: t.Scale(x), lambda: t.Scale(x, 2.0, 3), lambda: t.Scale(x, 2.0, goRun=True),
                lambda: t.Fill("x", 1.0), lambda: gopkg.Tool.Scale(gopkg.NewBox(1), x, 2.0)]:
        with pytest.raises((TypeError, ValueError)):
            bad()
    assert (t.Calls, t._memview_kept, x.tolist()) == before


def test_memory_lent_lives_with_the_receiver_or_the_result():
    import weakref
    t = gopkg.NewTool("t")
    first = np.arange(4.0)
    ref = weakref.ref(first)
    k = t.Keep(first)  # kept with the Keeper returned
    del first
    gc.collect()
    assert ref() is not None and k.At(3) == 3.0
    del k
    gc.collect()
    assert ref() is None
    x, y = np.arange(2.0), np.arange(2.0)
    t.Scale(x, 1.0)
    t.Scale(y, 1.0)  # a later call of the same method replaces what the first kept
    assert t._memview_kept["gopkg.Tool.Scale"] == (y,)
    a = mv.zeros(2)
    t.Scale(a, 1.0)
    assert t._memview_kept["gopkg.Tool.Scale"] == ((a, a),)
    t.Describe(x)
    assert set(t._memview_kept) == {"gopkg.Tool.Scale", "gopkg.Tool.Describe"}


@needs_fast
def test_refcounts_come_back():
    t = gopkg.NewTool("t")
    x, s, box = np.arange(4.0), "héllo", gopkg.NewBox(1)
    t.Scale(x, 1.0)  # kept with t from the first call on
    before = sys.getrefcount(t), sys.getrefcount(x), sys.getrefcount(s), sys.getrefcount(box)
    for _ in range(100):
        t.Scale(x, 1.0)
        t.Upper(s)
        t.Merge(box)
        t.Int8(3)
        t.Label()
        outcome(t.Scale, ro(np.arange(2.0)), 1.0)
        outcome(t.Int8, 300)
        outcome(gopkg.Tool.Int8, box, 1)
    assert (sys.getrefcount(t), sys.getrefcount(x), sys.getrefcount(s), sys.getrefcount(box)) == before


@needs_fast
def test_forked_child_raises():
    if sys.platform != "linux":
        pytest.skip("os.fork is Linux-only here")
    code = ("import os, sys, numpy as np, memview, gopkg\n"
            "t = gopkg.NewTool('t')\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    for call in (lambda: t.Int8(1), lambda: t.Scale(np.zeros(2), 1.0)):\n"
            "        try:\n"
            "            call()\n"
            "            os._exit(1)\n"
            "        except RuntimeError as e:\n"
            "            if 'gopkg_Tool_' not in str(e) or 'spawn' not in str(e):\n"
            "                os._exit(2)\n"
            "    os._exit(0)\n"
            "_, st = os.waitpid(pid, 0)\n"
            "sys.exit(os.waitstatus_to_exitcode(st))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


@needs_fast
def test_none_is_a_nil_slice():
    t = tool()
    assert t.Scale(None, 2.0) is None  # Go ranges over a nil slice: nothing to do
    assert t.SumSamples(None) == 0.0


@needs_fast
def test_read_only_memory_a_method_keeps_is_a_copy():
    t = tool()
    x = ro(np.arange(4.0))
    k = t.Keep(x)  # the analysis cannot follow what Go keeps: a copy, kept with the result
    assert k.At(3) == 3.0
    kept = k._memview_kept["gopkg.Tool.Keep"]
    assert type(kept[0]) is bytearray and bytes(kept[0]) == x.tobytes()
