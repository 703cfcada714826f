"""Lifetimes: memory stays valid while any view lives and comes back when none does."""
import gc
import weakref

import numpy as np
import pytest

import memview as mv


def _stats():
    gc.collect()
    return mv.default_pool().bytes_allocated, mv.live_handles()


def test_numpy_view_outlives_memview_object():
    before = _stats()
    a = mv.arange(1000, dtype="float64")
    n = np.asarray(a)[::10]
    del a
    gc.collect()
    assert n[5] == 50.0  # memory still valid
    n[5] = 1.0
    assert _stats() != before  # still held by n
    del n
    assert _stats() == before


def test_memoryview_outlives_memview_object():
    before = _stats()
    m = memoryview(mv.full((4, 4), 2.5))
    gc.collect()
    assert m[3, 3] == 2.5
    m.release()
    del m
    assert _stats() == before


def test_views_keep_memory_alive():
    before = _stats()
    a = mv.arange(100, dtype="int64").reshape(10, 10)
    owner = a.base  # the arange array: a view's base is the owner of the memory, as in NumPy
    assert owner is not None and owner.base is None
    v = a[2:5, ::3].T
    assert v.base is owner
    del owner
    del a
    gc.collect()
    assert v.tolist() == [[20, 30, 40], [23, 33, 43], [26, 36, 46], [29, 39, 49]]
    del v
    assert _stats() == before


def test_import_keeps_source_alive():
    src = np.arange(10, dtype=np.float64)
    ref = weakref.ref(src)
    a = mv.from_buffer(src[2:])
    del src
    gc.collect()
    assert ref() is not None  # the source array is held by the import
    n = np.asarray(a)
    del a
    gc.collect()
    assert ref() is not None and n[0] == 2.0  # ... and by views of it
    del n
    gc.collect()
    assert ref() is None  # and given back once nothing uses it


def test_import_outlives_everything_but_a_view():
    ba = bytearray(b"\x01" * 32)
    a = mv.from_buffer(ba)
    v = a[4:8]
    with pytest.raises(BufferError):
        ba.extend(b"x")  # the exporter refuses to resize while we hold its buffer
    del a
    gc.collect()
    with pytest.raises(BufferError):
        ba.extend(b"x")  # still exported through v
    del v
    gc.collect()
    ba.extend(b"x")  # released


def test_release_while_exported_is_refused():
    a = mv.zeros(16)
    m = memoryview(a)
    with pytest.raises(BufferError, match="export"):
        a.release()
    assert not a.released and m[0] == 0.0  # nothing changed
    m.release()
    a.release()
    assert a.released
    a.release()  # twice is harmless
    with pytest.raises(ValueError, match="released"):
        a[0]
    with pytest.raises(ValueError, match="released"):  # as for a released memoryview
        memoryview(a)
    assert "released" in repr(a)


def test_release_frees_when_last_reference():
    before = _stats()
    with mv.zeros(1 << 20) as a:
        assert mv.default_pool().bytes_allocated >= before[0] + (8 << 20)
        v = a[10:20]
    assert a.released
    assert v[0] == 0.0  # the view holds its own reference
    del v
    assert _stats() == before


def test_an_import_stays_until_the_last_view_of_it_goes():
    # an import and its C-level views share one owner of the exporter's buffer:
    # it is released with the last of them, not with the first
    before = _stats()
    ba = bytearray(range(64))
    a = mv.from_buffer(ba)
    v = a[8:16]
    w = v[::2]
    a.release()
    assert a.released and not v.released and not w.released
    with pytest.raises(BufferError):
        ba.append(0)  # still exported
    n = np.from_dlpack(w)  # a DLPack export hands Go the view of a released import
    assert n.tolist() == [8, 10, 12, 14]
    w[0] = 200
    assert ba[8] == 200 and n[0] == 200
    del n
    v.release()
    with pytest.raises(BufferError):
        ba.append(0)  # w still uses it
    del w
    gc.collect()
    ba.append(0)  # nothing holds the buffer any more
    assert _stats() == before


def test_a_failed_call_gives_back_the_handles_it_made():
    # handles made for an import and its view during a call that fails are
    # caches: given back, so the failure leaves Go as it found it
    before = _stats()
    src = np.arange(12.0)
    a = mv.from_buffer(src)
    v = a[::3]
    with pytest.raises(ValueError, match="broadcast"):
        mv._core.go_copyto(v, mv.zeros(5))  # Go is handed both, then refuses (4,) from (5,)
    assert mv.live_handles() == before[1]
    mv._core.go_copyto(v, mv.full(4, 7.0))
    assert src.tolist()[::3] == [7.0] * 4
    assert mv.live_handles() == before[1] + 2  # kept after a call that worked: the import's, the view's
    del a, v
    assert _stats() == before


def test_pool_statistics():
    pool = mv.default_pool()
    assert pool.backend_name in ("host", "mmap")
    n0, total0 = pool.num_allocations, pool.total_bytes_allocated
    a = mv.empty((256, 256))
    assert pool.num_allocations == n0 + 1
    assert pool.total_bytes_allocated == total0 + 256 * 256 * 8
    assert pool.max_memory >= pool.bytes_allocated >= 256 * 256 * 8
    assert "Pool(backend=" in repr(pool)
    del a


def test_go_memory_is_aligned():
    for n in (1, 3, 64, 1000, 1 << 18):
        a = mv.empty(n, "uint8")
        assert a.ptr % 64 == 0
        del a


def test_arrays_go_by_reference_counting_alone():
    # Nothing in the facade may keep an array in a reference cycle: with the cycle
    # collector off, dropping the last reference must give the handle back.
    import gc as _gc
    import numpy as _np
    makers = [lambda: mv.arange(6).reshape(2, 3), lambda: mv.full((2, 2), 1 + 2j),
              lambda: mv.zeros(3, dtype="T{<i:a:>d:b:}"), lambda: mv.full(4, 1.5, dtype=">f8"),
              lambda: mv.from_buffer(_np.arange(6.0)[::-2])]
    _gc.collect()
    _gc.disable()
    try:
        before = mv.live_handles()
        for make in makers:
            a = make()
            a.tolist(), a[0], repr(a), a.copy(), a.T, a.tobytes(), len(a)
            with memoryview(a):
                pass
            del a
            assert mv.live_handles() == before, make
    finally:
        _gc.enable()
