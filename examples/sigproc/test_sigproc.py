"""examples/sigproc, a Go package built together with memview
(python3 build.py wheel --with examples/sigproc): its slices reach NumPy without a
copy, it works in place on NumPy's memory, and it lends and keeps memory by the
lifetime rules of docs/go/index.md (Lifetimes)."""
import gc
import os
import weakref

import numpy as np
import pytest

import memview as mv

if "sigproc" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("sigproc is not built in: python3 build.py wheel --with examples/sigproc", allow_module_level=True)
import sigproc  # noqa: E402


def churn_go_heap():
    """Allocate and drop a few hundred MiB of Go memory: Go's collector runs."""
    for _ in range(40):
        sigproc.Ramp(1_000_000)
    gc.collect()


def test_user_story():
    r = sigproc.Ramp(10)
    a = mv.asarray(r)  # a zero-copy, writable view of the Go slice's backing array
    assert a.shape == (10,) and a.dtype == "float64" and not a.readonly
    np.asarray(a)[3] = 100.0
    assert sigproc.Sum(r) == 142.0  # Go sees NumPy's write
    x = np.ones(6)
    assert sigproc.Scale(x[::2], 5.0) is None  # Go works in place on NumPy memory, strided
    assert x.tolist() == [5.0, 1.0, 5.0, 1.0, 5.0, 1.0]
    assert sigproc.Sum(np.arange(5.0)) == 10.0  # a NumPy array where Go takes []float64
    s = sigproc.NewSignal(8)
    np.asarray(mv.asarray(s))[:] = 1.5
    assert s.Total() == 12.0  # a Go Exporter


def test_go_slice_viewed_in_place():
    r = sigproc.Ramp(5)
    a = mv.asarray(r)
    n = np.asarray(a)
    assert n.ctypes.data == a.ptr and n.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    b = mv.asarray(r)  # a second view of the same Go memory
    assert b.ptr == a.ptr
    b[0] = -7
    assert n[0] == -7 and sigproc.Sum(r) == -7 + 10
    assert mv.from_go(r, writable=False).readonly


def test_python_memory_lent_to_go_without_copy():
    # []float64 parameters: NumPy, memview, any buffer of float64.
    assert sigproc.Sum(mv.arange(4, dtype="float64")) == 6.0
    assert sigproc.Sum(np.zeros((3, 2)) + 1) == 6.0  # contiguous, flattened in C order
    assert sigproc.Sum(memoryview(np.arange(3.0))) == 3.0
    assert sigproc.Sum(np.array([], dtype=np.float64)) == 0.0
    # *memview.Array parameters: any strides, any buffer.
    m = np.arange(12.0).reshape(3, 4)
    sigproc.Scale(m.T[::-1, 1:], 10.0)
    want = np.arange(12.0).reshape(3, 4)
    want[1:, :] *= 10
    assert (m == want).all()
    assert sigproc.Mean(m[:, 0]) == (0 + 40 + 80) / 3
    g = mv.zeros(4)
    g[...] = 2.0
    sigproc.Scale(g, 3.0)
    assert g.tolist() == [6.0] * 4


def test_refused_without_copy():
    with pytest.raises(TypeError, match="needs an array of float64, not int64"):
        sigproc.Sum(np.arange(5))
    with pytest.raises(ValueError, match="contiguous"):
        sigproc.Sum(np.arange(10.0)[::2])
    ro = np.arange(3.0)
    ro.flags.writeable = False
    if os.environ.get("MEMVIEW_GOPY_PATH") == "1":  # gopy's path alone: Go may write a []float64
        with pytest.raises(ValueError, match="read-only"):
            sigproc.Sum(ro)
    else:
        assert sigproc.Sum(ro) == 3.0  # the build proved that Go only reads it: no copy
    with pytest.raises(ValueError, match="read-only"):
        sigproc.Scale(ro, 2.0)  # Go's View refuses the write
    assert ro.tolist() == [0.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="float64"):
        sigproc.Scale(np.arange(3), 2.0)  # memview.ErrType is a TypeError
    with pytest.raises(TypeError, match="buffer protocol"):
        sigproc.Sum([1.0, 2.0])  # a list has no memory to lend: no silent copy
    with pytest.raises(ValueError, match="empty"):
        sigproc.Mean(np.zeros(0))
    with pytest.raises(ValueError, match="negative"):
        sigproc.NewSignal(-1)


def test_go_slice_outlives_wrapper_and_go_gc():
    a = mv.asarray(sigproc.Ramp(1000))  # the gopy object is gone at once
    v = a[::-1]
    del a
    churn_go_heap()
    assert v[0] == 999.0 and v[999] == 0.0 and np.asarray(v).sum() == 999 * 1000 / 2


def test_signal_views_outlive_the_signal():
    s = sigproc.NewSignal(4)
    n = np.asarray(mv.asarray(s))
    n[:] = [1, 2, 3, 4]
    del s
    churn_go_heap()
    assert n.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_go_keeps_numpy_memory():
    out = np.zeros(5)
    alive = weakref.ref(out)
    sigproc.Tap(out)  # Go keeps its own view of NumPy's memory, in a global
    del out  # Python drops every reference
    gc.collect()
    churn_go_heap()
    assert alive() is not None  # Go's view keeps the NumPy array alive
    for v in (1.0, 2.0, 3.0):
        sigproc.Emit(v)  # Go writes later ...
    assert sigproc.Tapped() == 6.0  # ... and reads
    assert alive().tolist() == [1.0, 2.0, 3.0, 0.0, 0.0]
    with pytest.raises(IndexError, match="full"):
        for _ in range(3):
            sigproc.Emit(0.0)
    sigproc.Untap()  # Go lets go: the NumPy array goes
    gc.collect()
    assert alive() is None
    with pytest.raises(ValueError, match="no buffer"):
        sigproc.Emit(1.0)


def test_go_keeps_memview_memory():
    pool = mv.default_pool()
    before = pool.bytes_allocated
    out = mv.zeros(3)
    sigproc.Tap(out)
    del out
    gc.collect()
    assert pool.bytes_allocated > before  # Go's view holds the memory
    sigproc.Emit(4.0)
    assert sigproc.Tapped() == 4.0
    sigproc.Untap()
    gc.collect()
    assert pool.bytes_allocated == before  # and gives it back
