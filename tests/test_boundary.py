"""The C/Go boundary: no Go panic crosses into C, and the gopy surface stays small.

gopy v0.4.10 aborts the interpreter on a Go panic, segfaults when an error-returning
method gets a bad handle, and leaks the C string of error-returning wrappers. So
memview's own gopy-bound API is a few functions that take no handles; all array work
goes through memview._core, whose Go functions recover panics. (For Go packages built
together with memview, build.py patches gopy's output: see test_gopy_errors.py.)
"""
import inspect

import pytest

import memview as mv
from memview import _core
from memview._ext import pyext

# Pool statistics are read through memview._core.pool_stats, like everything else.
GOPY_API = {"Install", "LiveHandles"}


@pytest.mark.skipif(not hasattr(_core, "_selftest_panic"),
                    reason="the panic hook exists only in the test build (python3 build.py test)")
def test_go_panic_becomes_system_error():
    with pytest.raises(SystemError, match="Go panic"):
        _core._selftest_panic()
    a = mv.arange(3)  # the interpreter and the extension still work
    assert a.tolist() == [0, 1, 2]


def test_gopy_surface_is_small_and_guarded():
    exported = {name for name, obj in vars(pyext).items()
                if inspect.isfunction(obj) and name[0].isupper() and obj.__module__ == pyext.__name__}
    assert exported == GOPY_API
    for name in GOPY_API - {"Install"}:
        assert isinstance(getattr(pyext, name)(), int)
    pyext.Install()  # idempotent
    assert _core.empty((2,), "int8", "C").tolist() == [0, 0]


def test_core_functions_check_their_arguments():
    a = mv.zeros(3)
    for call in (lambda: _core.copy("x", "C"), lambda: _core.copyto(3, a), lambda: _core.copyto(a, object()),
                 lambda: _core.go_copyto(a, b"abc"), lambda: _core.go_fill(None, b"\0" * 8),
                 lambda: _core.release(object()), lambda: _core.set_array_type(int),
                 lambda: a[((9, 0),)], lambda: a["x"], lambda: a.transpose([0, 0]),
                 lambda: _core.readonly_view(3), lambda: _core.numpy_view("x")):
        with pytest.raises((TypeError, IndexError, ValueError)):
            call()
    with pytest.raises(ValueError):
        _core.go_fill(a, b"\0")  # wrong item size
    with pytest.raises(ValueError):
        _core.empty((2,), "float64", "CF")
    assert a.tolist() == [0.0, 0.0, 0.0]
