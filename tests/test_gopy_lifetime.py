"""Lifetimes across the Go/Python line (docs/go/index.md, Lifetimes): Go memory
handed to Python stays valid while any view of it lives, after the gopy object
is gone and Go's collector has run; Python memory Go keeps (its own view of a
*memview.Array) keeps its Python owner alive until Go releases it."""
import gc
import weakref

import numpy as np
import pytest

import memview as mv

if "gopkg" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("tests/gopkg is built in by the test build (python3 build.py test)", allow_module_level=True)
import gopkg  # noqa: E402


def test_go_slice_stays_pinned_after_wrapper_and_gc():
    a = mv.asarray(gopkg.Float64s(100_000))  # no Python reference to the Go slice remains
    m = memoryview(a)[10:20]
    del a
    gc.collect()
    runs = gopkg.NumGC()
    gopkg.Churn(200)
    gopkg.GC()
    assert gopkg.NumGC() >= runs + 2  # Go's collector ran, and moved nothing it could not
    assert m.tolist() == [float(i) for i in range(10, 20)]
    n = np.asarray(m)
    n[:] = -1
    assert m[0] == -1.0


def test_go_keeps_a_numpy_array():
    n = np.arange(6.0)
    alive = weakref.ref(n)
    gopkg.Keep(n[::2])  # Go keeps its own view in a global
    del n
    gc.collect()
    gopkg.GC()
    assert alive() is not None  # the NumPy array is kept alive by Go's view
    assert gopkg.KeptSum() == 0 + 2 + 4  # Go reads ...
    gopkg.KeptFill(7.0)  # ... and writes later
    assert gopkg.KeptSum() == 21.0 and alive()[::2].tolist() == [7.0] * 3 and alive()[1] == 1.0
    gopkg.Unkeep()  # Go lets go
    gc.collect()
    assert alive() is None


def test_go_keeps_a_memview_array():
    pool = mv.default_pool()
    before = pool.bytes_allocated
    a = mv.arange(4, dtype="float64")
    gopkg.Keep(a)
    del a
    gc.collect()
    gopkg.GC()
    assert pool.bytes_allocated > before and gopkg.KeptSum() == 6.0
    gopkg.KeptFill(1.0)
    assert gopkg.KeptSum() == 4.0
    gopkg.Unkeep()
    assert pool.bytes_allocated == before


def test_the_lent_array_itself_ends_with_the_call():
    n = np.arange(3.0)
    gopkg.KeepLent(n)  # the wrong way: keeping the array Go was lent
    with pytest.raises(ValueError, match="released"):
        gopkg.UseLent()  # a clear error, not a read of memory Python may have freed
    assert n.tolist() == [0.0, 1.0, 2.0]


def test_lent_memory_is_locked_while_go_keeps_it():
    b = bytearray(16)
    gopkg.Keep(mv.from_buffer(b).reshape(2, 8)[:, :0])  # any view keeps the export
    with pytest.raises(BufferError):
        b.extend(b"x")  # Go's view holds the buffer export: no resize under Go
    gopkg.Unkeep()
    b.extend(b"x")
    assert len(b) == 17
