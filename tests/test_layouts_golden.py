"""memview's layout rules against NumPy's, on the golden cases of
memview/testdata/layouts.json (written by gen_layouts.py from NumPy): basic
indexing, transpose and reshape over random layouts, negative and zero strides
included. The Go core checks the same cases (memview/layout_golden_test.go).

Layouts are compared by what their elements can observe: the addresses of
the elements (offset, and the strides of axes longer than one); an array
without elements only by its shape.

Every case runs through the array's own methods (the C fast path where it
applies, else the facade and Go), which the product wheel has; the test build
also checks the C layout functions alone (_core._c_layout) and the Go core alone
(the test build's _core._go_view, _go_transpose and _go_reshape)."""
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import memview as mv
from memview import _core
from test_views_c import encode_key

GOLDEN = json.loads((Path(__file__).parent.parent / "memview" / "testdata" / "layouts.json").read_text())
CASES = GOLDEN["cases"]
DTYPES = {1: "u1", 2: "<i2", 4: "<f4", 8: "<f8"}
SELFTEST = hasattr(_core, "_c_layout")


def _load_generator():
    """gen_layouts.py, which wrote the cases: its reading of a case's key."""
    path = Path(__file__).parent.parent / "memview" / "testdata" / "gen_layouts.py"
    spec = importlib.util.spec_from_file_location("_gen_layouts", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_key = _load_generator().to_numpy_key


def _arrays(case):
    """A buffer of distinct bytes, and a memview array with the case's layout
    over it (Buffer.view takes any layout within the buffer's extent)."""
    buf = mv.Buffer(bytes(k % 251 for k in range(case["nbytes"])))
    a = buf.view(DTYPES[case["itemsize"]], tuple(case["shape"]), tuple(case["strides"]), case["offset"])
    assert (a.shape, a.strides) == (tuple(case["shape"]), tuple(case["strides"])), case
    return buf, a


def _check(got, a, buf, case, how):
    want = case["want"]
    where = f"{how}: {case['op']} {case['arg']} of shape {case['shape']} strides {case['strides']}"
    if isinstance(got, BaseException):
        expect = "ValueError" if want.get("error") == "copy" else want.get("error")
        assert type(got).__name__ == expect, f"{where}: raised {got!r}, NumPy {want}"
        return
    assert "error" not in want, f"{where}: gave a result, NumPy raised {want['error']}"
    if want["scalar"]:
        assert not isinstance(got, mv.Array), f"{where}: a view, NumPy a scalar"
        start = case["offset"] + want["offset"]
        raw = bytes(k % 251 for k in range(start, start + case["itemsize"]))
        assert got == np.frombuffer(raw, DTYPES[case["itemsize"]])[0], where
        return
    assert isinstance(got, mv.Array), f"{where}: a scalar, NumPy a view"
    assert (list(got.shape), got.c_contiguous, got.f_contiguous) == (want["shape"], want["c"], want["f"]), where
    assert _observable(got.strides, got.ptr - a.ptr, got.shape) == \
        _observable(want["strides"], want["offset"], want["shape"]), where


def _observable(strides, offset, shape):
    """What elements can tell of a layout: no element, nothing; else the offset
    and the strides of the axes longer than one (NumPy and memview may differ
    elsewhere, and no address depends on it)."""
    if 0 in shape:
        return None
    return offset, [st for st, n in zip(strides, shape) if n > 1]


def _public(a, case):
    op, arg = case["op"], case["arg"]
    try:
        if op == "index":
            return a[_key(arg)]
        if op == "transpose":
            return a.T if arg is None else a.transpose(*arg)
        return a.reshape(*arg)
    except (IndexError, ValueError, TypeError) as e:
        return e


def test_the_golden_cases_are_numpys():
    assert len(CASES) >= 1000 and GOLDEN["numpy"].startswith("2.")
    kinds = {(c["op"], "error" in c["want"]) for c in CASES}
    assert kinds == {(op, e) for op in ("index", "transpose", "reshape") for e in (False, True)}


@pytest.mark.parametrize("start", range(0, len(CASES), 250))
def test_layouts_match_numpy(start):
    for case in CASES[start:start + 250]:
        buf, a = _arrays(case)
        got = _public(a, case)
        _check(got, a, buf, case, "the array's method")
        if isinstance(got, mv.Array):
            got.release()
        a.release()
        buf.release()


@pytest.mark.skipif(not SELFTEST, reason="needs the test build (_core._c_layout, the C layout functions alone)")
def test_c_and_go_layouts_match_numpy():
    fast = 0
    for case in CASES:
        buf, a = _arrays(case)
        op, arg = case["op"], case["arg"]
        want = case["want"]
        # the C layout functions: a layout, or None where they leave the case to Go
        c_arg = _key(arg) if op == "index" else ([] if arg is None else arg)
        try:
            c = _core._c_layout(a, op, c_arg)
        except (IndexError, ValueError, TypeError) as e:
            _check(e, a, buf, case, "C")
            c = None
        if c is not None:
            fast += 1
            assert "error" not in want, (case, c)
            shape, strides, offset, scalar, cc, fc = c
            assert scalar == want["scalar"], case
            if not scalar:
                assert (list(shape), cc, fc) == (want["shape"], want["c"], want["f"]), case
                assert _observable(strides, offset, shape) == \
                    _observable(want["strides"], want["offset"], want["shape"]), case
        # the Go core
        try:
            if op == "index":
                enc, scalar = encode_key(_key(arg), a.ndim)
                g = _core._go_view(a, enc)
            elif op == "transpose":
                scalar = False
                g = _core._go_transpose(a, tuple(range(a.ndim))[::-1] if arg is None else tuple(arg))
            else:
                scalar = False
                g = _core._go_reshape(a, tuple(arg))
        except (IndexError, ValueError, TypeError) as e:
            _check(e, a, buf, case, "Go")
        else:
            assert "error" not in want, (case, "Go gave a layout")
            assert scalar == want["scalar"], case
            _check(g, a, buf, dict(case, want=dict(want, scalar=False)), "Go")
            g.release()
        a.release()
        buf.release()
    assert fast > len(CASES) // 2  # most cases give a layout
