"""Errors and panics of Go packages built together with memview: build.py's edits
of gopy's output make a Go error the exception memview raises for it, turn a panic
into an exception instead of an abort, refuse a forged handle instead of
crashing, and free the C string of every error-returning call (tests/gopkg)."""
import subprocess
import sys

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402


@pytest.mark.parametrize("kind,exc", [("type", TypeError), ("index", IndexError), ("invalid", ValueError),
                                      ("readonly", ValueError), ("exported", BufferError),
                                      ("nomemory", MemoryError), ("plain", RuntimeError)])
def test_go_errors_become_the_right_exception(kind, exc):
    with pytest.raises(exc, match="gopkg.Fail") as info:
        gopkg.Fail(kind)
    assert type(info.value) is exc
    with pytest.raises(IndexError, match="FailValue"):
        gopkg.FailValue(True)
    assert gopkg.FailValue(False) == 1.5
    assert gopkg.Fill(np.zeros(2), 1.0) is None  # a nil error is None, not gopy's ""


def test_go_panics_raise_instead_of_aborting():
    with pytest.raises(RuntimeError, match="Go panic: boom"):
        gopkg.Panic("boom")  # a function with no results (GIL taken back by a deferred call)
    with pytest.raises(RuntimeError, match="Go panic: bang"):
        gopkg.PanicValue("bang")  # (value, error): the GIL is taken back by the recovery
    with pytest.raises(IndexError, match="Go panic: memview: index 3 is out of range"):
        gopkg.PanicIndex(np.zeros(3))  # a panic with a memview error keeps its type
    assert gopkg.Dot(np.ones(2), np.ones(2)) == 2.0  # the interpreter and Go carry on


def test_a_forged_handle_is_refused():
    bad = gopkg.Count(handle=10**12)
    with pytest.raises(ValueError, match="variable handle not registered"):
        bad.Next()
    c = gopkg.NewCount()
    assert (c.Next(), c.Next()) == (1, 2)


def test_error_strings_are_freed():
    code = """
import numpy as np, gopkg
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
x = np.zeros(1)
def calls(n):
    for _ in range(n):
        gopkg.Fill(x, 1.0)           # success: gopy returned a malloc'd ""
        try:
            gopkg.Fail("index")      # failure: gopy returned the malloc'd message
        except IndexError:
            pass
calls(20000)
before = rss()
calls(200000)
print(rss() - before)
"""
    env = {"PYTHONPATH": ":".join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    growth = int(out.stdout)
    # 400,000 leaked strings would be at least 12 MiB.
    assert growth < 4 << 20, f"RSS grew by {growth} bytes over 400,000 calls"
