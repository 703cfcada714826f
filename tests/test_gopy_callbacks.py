"""Go func parameters, which gopy binds to Python callables (tests/gopkg/callbacks.go).
gopy's callbacks read the callable's result without the GIL and went on with the NULL
of a call that raised: a callable that raised or returned the wrong type crashed the
interpreter. Now the result is converted with the GIL held, an exception the callable
raises is raised by the bound function when it returns (first one wins), a Go string
comes from a str, nothing that is not callable is taken, and no reference leaks."""
import sys
import threading

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402
from memview._ext import go  # noqa: E402


def test_callables_are_called_back():
    assert gopkg.ApplyInt(lambda v: v * 3, 2) == 18
    assert gopkg.ApplyStr(str.upper, "ab") == "AB!"
    seen = []
    gopkg.Visit(seen.append, np.arange(3.0))
    assert seen == [0.0, 1.0, 2.0]


def test_an_exception_of_the_callable_is_raised_by_the_call():
    calls = []

    def boom(v):
        calls.append(v)
        raise ZeroDivisionError(f"boom {v}")

    with pytest.raises(ZeroDivisionError, match="boom 3"):   # the first one
        gopkg.ApplyInt(boom, 3)
    assert calls == [3, 0]   # Go went on with the zero value, and called again
    # The callable's exception wins over the error Go returned because of it.
    with pytest.raises(KeyError):
        gopkg.ApplyOrFail(lambda v: {}["missing"], 1)
    with pytest.raises(RuntimeError, match="negative result"):
        gopkg.ApplyOrFail(lambda v: -v, 1)
    assert gopkg.ApplyOrFail(lambda v: v + 1, 1) == 2


@pytest.mark.parametrize("result, exc", [("x", TypeError), (1.5, TypeError), (2**70, OverflowError),
                                         (None, TypeError)])
def test_a_result_go_cannot_take_is_raised(result, exc):
    with pytest.raises(exc):
        gopkg.ApplyInt(lambda v: result, 1)


def test_a_go_string_comes_from_a_str():
    with pytest.raises(TypeError):
        gopkg.ApplyStr(lambda s: b"bytes", "x")
    assert gopkg.ApplyStr(lambda s: s + "\u00e9", "caf") == "caf\u00e9!"


@pytest.mark.parametrize("bad", [5, None, "f"])
def test_what_is_not_callable_is_refused(bad):
    with pytest.raises(TypeError, match=r"gopkg.ApplyInt\(\) argument 'f' must be callable \(Go type func\(int\) int\)"):
        gopkg.ApplyInt(bad, 1)


def test_no_reference_leaks():
    token = object()
    fn = lambda v: token  # noqa: E731
    seen = []
    before = sys.getrefcount(token), sys.getrefcount(fn)
    for _ in range(500):
        gopkg.Visit(lambda x: seen.append(token), np.arange(2.0))
        gopkg.ApplyStr(lambda s: s, "x")
    assert (sys.getrefcount(token) - len(seen), sys.getrefcount(fn)) == before


def test_go_run_keeps_the_callable_and_refuses_lent_memory():
    with pytest.raises(ValueError, match="goRun=True cannot take memory lent"):
        gopkg.Visit(print, np.arange(2.0), goRun=True)
    done = threading.Event()
    got = []

    def record(x):
        got.append(x)
        if len(got) == 3:
            done.set()

    before = sys.getrefcount(record)
    xs = go.Slice_float64([1.0, 2.0, 3.0])          # memory Go owns
    gopkg.Visit(record, xs, goRun=True)
    assert done.wait(10)
    for _ in range(200):                             # the goroutine lets go of the callable
        if sys.getrefcount(record) == before:
            break
        threading.Event().wait(0.01)
    assert got == [1.0, 2.0, 3.0] and sys.getrefcount(record) == before
    del xs
