"""The creation cache (pyext/core_blocks.c, pyext/ops_create.c): mv.empty, mv.zeros and
Array.copy of small host arrays made in C from blocks Go lends in batches.

Each test runs under a plain pool over the host backend (the cache serves only
pools whose statistics are all they keep; the suite's checked pool is served
one Go allocation per array), and checks that the pool's statistics say
exactly what the user was handed, that arrays made here behave as the ones Go
makes, and that every block comes back.
"""
import gc
import os
import pickle
import threading

import numpy as np
import pytest

import memview as mv
from memview import _core

DTYPES = ["float64", "float32", "int8", "uint16", "int32", "int64", "bool", "complex64", "complex128",
          "float16", np.float64, np.dtype("<i4"), mv.dtype("uint8"), None, "<f8", "d", "T{<i:a:<d:b:}",
          "(2,3)f", "S5", ">i2"]
SHAPES = [1, 7, (3, 4), (2, 3, 4), (5, 1), (1, 64), 8192]


@pytest.fixture
def plain():
    """A plain host pool made the default; on the way out every block and byte
    must be back (the statistics read flushes the cache first)."""
    pool = mv.Pool("host")
    old = mv.set_default_pool(pool)
    lent = _core.blocks_stats()[2]  # blocks of arrays made before (module globals)
    try:
        yield pool
    finally:
        gc.collect()
        assert (pool.bytes_allocated, pool.num_live) == (0, 0)
        assert _core.blocks_stats() == (0, 0, lent)
        mv.set_default_pool(old)


def layout(a):
    return (a.shape, a.strides, a.dtype, a.format, a.itemsize, a.nbytes, a.c_contiguous,
            a.f_contiguous, a.readonly, a.device, a.__array_interface__["typestr"])


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("order", ["C", "F"])
def test_same_arrays_as_go(plain, dtype, order):
    for shape in SHAPES:
        a = mv.empty(shape, dtype, order=order)
        b = mv._empty_py(shape, dtype, order=order)  # made by Go
        assert layout(a) == layout(b)
        assert a.ptr % 64 == 0
        assert a.tobytes() == bytes(a.nbytes)
        assert memoryview(a).format == memoryview(b).format
        z = mv.zeros(shape, dtype=dtype, order=order)
        assert layout(z) == layout(b)
        if a.__array_interface__["typestr"][1] != "V":
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        del a, b, z


@pytest.mark.parametrize("call", [
    lambda: mv.empty(4, dtype="int32"),
    lambda: mv.zeros(shape=(2, 3)),
    lambda: mv.zeros(shape=5, dtype=np.float32, order="F"),
    lambda: mv.empty((3, 2), dtype=None, order="C", device="cpu", pool=None),
], ids=["dtype", "shape", "shape-dtype-order", "all"])
def test_keywords_take_the_fast_path(plain, call):
    # every keyword NumPy users write is served from the cache, as positional
    # arguments are: the array has no Go handle
    h = mv.live_handles()
    a = call()
    assert mv.live_handles() == h and a.tobytes() == bytes(a.nbytes)
    b = mv._empty_py(a.shape, a.dtype, order="F" if a.f_contiguous and not a.c_contiguous else "C")
    assert layout(a) == layout(b)
    del a, b


def test_statistics_say_what_was_handed(plain):
    assert (plain.num_allocations, plain.total_bytes_allocated) == (0, 0)
    kept = [mv.empty(n) for n in (1, 6, 8, 100, 512, 512)]
    kept.append(mv.zeros((3, 5), "int16"))
    for _ in range(50):  # handed out again and again from the cache
        mv.zeros(512)
    caps = [(a.nbytes + 63) // 64 * 64 for a in kept]
    assert plain.bytes_allocated == sum(caps)
    assert plain.num_live == len(kept)
    assert plain.num_allocations == len(kept) + 50
    assert plain.total_bytes_allocated == sum(caps) + 50 * 4096
    assert plain.max_memory >= sum(caps)
    del kept
    gc.collect()
    assert (plain.bytes_allocated, plain.num_live) == (0, 0)
    assert plain.num_allocations == 57


def test_reused_blocks_are_zero(plain):
    for _ in range(3):
        a = mv.empty((16, 32))
        np.asarray(a)[...] = 7.5
        c = a.copy()
        del a
        b = mv.zeros((16, 32))
        assert not np.asarray(b).any()
        assert (np.asarray(c) == 7.5).all()
        del b, c


def test_copy_matches_go(plain):
    src = np.arange(60, dtype="<f8").reshape(3, 4, 5)
    for x in (mv.from_buffer(src), mv.from_buffer(np.asfortranarray(src)), mv.asarray(src)[:, 1:3],
              mv.asarray(src)[::-1], mv.asarray(src).T, mv.from_buffer(src.astype(">i2"))):
        for order in ("C", "F", "A", "K"):
            fast = x.copy(order)
            slow = x._copy_slow(order)
            assert layout(fast) == layout(slow), (x, order)
            assert memoryview(fast).format == memoryview(slow).format
            np.testing.assert_array_equal(np.asarray(fast), np.asarray(slow))
            assert not np.shares_memory(np.asarray(fast), src)
            again = fast.copy(order, pool=plain)  # Go adopts the fast copy, then copies it
            assert layout(again) == layout(slow)
            del fast, slow, again
        del x


def test_go_adopts_the_block(plain):
    handles = mv.live_handles()
    a = mv.zeros(100)
    v = a[10:20]
    lent = _core.blocks_stats()[2]
    a.fill(2.0)  # C writes it: the block stays C's
    assert _core.blocks_stats()[2] == lent
    a.copy(pool=plain).release()  # Go is handed the array: it takes the block over
    assert _core.blocks_stats()[2] == lent - 1
    assert mv.live_handles() == handles  # counted by the pool, not as a handle
    assert np.asarray(v).tolist() == [2.0] * 10
    w = v[::2]
    w.fill(3.0)  # a C-level view of the adopted array
    assert np.asarray(a)[10:20].tolist() == [3.0, 2.0] * 5
    before = plain.bytes_allocated
    del a
    gc.collect()
    assert plain.bytes_allocated == before  # the views keep the memory
    del v, w
    gc.collect()
    assert plain.bytes_allocated == 0


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_go_adopts_every_dtype(plain, dtype):
    a = mv.zeros((3, 2), dtype)
    np.asarray(a).view("u1")[...] = 3
    v = a[1:]
    b = a.copy(pool=plain)  # through Go: a's block becomes a Go array first
    assert layout(b) == layout(a)
    assert b.tobytes() == a.tobytes() == bytes([3]) * a.nbytes
    assert v.tobytes() == a.tobytes()[a.nbytes // 3:]
    del a, b, v


def test_release_with_views_then_go(plain):
    a = mv.zeros((4, 4))
    v = a[1]
    a.release()
    assert a.released
    with pytest.raises(ValueError, match="released"):
        a.shape
    assert plain.num_live == 1  # the view keeps the block
    v.fill(5.0)  # Go adopts the kept block through the view
    assert np.asarray(v).tolist() == [5.0] * 4
    del v
    gc.collect()
    assert plain.num_live == 0
    b = mv.zeros(16)
    u = b[2:]
    b.release()
    del u  # the kept block goes back without Go
    gc.collect()
    assert plain.num_live == 0


def test_release_refused_while_exported(plain):
    a = mv.zeros(8)
    m = memoryview(a)
    with pytest.raises(BufferError):
        a.release()
    m.release()
    a.release()
    a.release()
    assert plain.num_live == 0


def test_protocols(plain):
    a = mv.zeros((3, 4), "int32")
    np.asarray(a)[...] = np.arange(12).reshape(3, 4)
    n = np.from_dlpack(a)
    assert n.tolist() == np.arange(12).reshape(3, 4).tolist()
    p = pickle.loads(pickle.dumps(a, protocol=5))
    assert np.asarray(p).tolist() == n.tolist()
    assert a.tolist() == n.tolist()
    assert a[1, 2] == 6
    del n, p, a


def test_pool_change_sends_blocks_home(plain):
    a = mv.zeros(64)
    other = mv.Pool("host")
    old = mv.set_default_pool(other)
    try:
        b = mv.zeros(64)
        assert other.num_live == 1 and plain.num_live == 1
        del a  # back to the pool it came from, not into the cache
        gc.collect()
        assert plain.num_live == 0
        assert other.num_live == 1
        del b
        gc.collect()
        assert other.num_live == 0
    finally:
        mv.set_default_pool(old)


@pytest.mark.skipif(os.environ.get("MEMVIEW_TEST_POOL") == "plain", reason="the suite runs under a plain pool")
def test_checked_pool_is_served_one_allocation_each(memory_comes_back):
    # the suite's default pool records each allocation's origin
    a = mv.zeros(32)
    c = a.copy()
    assert a.released is False
    assert len(memory_comes_back.leaks()) == 2
    del a, c


def test_many_sizes_and_live_arrays(plain):
    rng = np.random.default_rng(5)
    live = []
    for _ in range(3000):
        n = int(rng.integers(1, 3000))
        live.append(mv.zeros(n, "uint8"))
        if rng.random() < 0.4:
            live.pop(int(rng.integers(len(live))))
    expect = sum((a.nbytes + 63) // 64 * 64 for a in live)
    assert plain.bytes_allocated == expect
    assert plain.num_live == len(live)
    assert all(not np.asarray(a).any() for a in live)
    del live


def test_threads(plain):
    errors = []

    def work():
        try:
            for k in range(2000):
                a = mv.zeros(k % 50 + 1)
                np.asarray(a)[:] = 1
                b = a.copy()
                assert np.asarray(b).sum() == k % 50 + 1
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == []


@pytest.mark.parametrize("call,exc", [
    (lambda: mv.empty(-1), ValueError),
    (lambda: mv.empty((2, -1)), ValueError),
    (lambda: mv.empty(3, "nope"), TypeError),
    (lambda: mv.empty(3, order="X"), ValueError),
    (lambda: mv.empty(3, device=5), TypeError),
    (lambda: mv.empty("3"), TypeError),
    (lambda: mv.zeros(3, colour="red"), TypeError),
    (lambda: mv.zeros(), TypeError),
    (lambda: mv.zeros(3, "f8", "C"), TypeError),
    (lambda: mv.zeros(3, dtype="f8", shape=3), TypeError),
    (lambda: mv.zeros(1 << 62, "f8"), ValueError),  # too big, as NumPy says
])
def test_bad_arguments_change_nothing(plain, call, exc):
    before = (plain.bytes_allocated, plain.num_live, plain.num_allocations)
    with pytest.raises(exc):
        call()
    gc.collect()
    assert (plain.bytes_allocated, plain.num_live, plain.num_allocations) == before


def test_bad_copy_arguments_change_nothing(plain):
    a = mv.zeros(3)
    before = (plain.bytes_allocated, plain.num_live, plain.num_allocations)
    for call, exc in [(lambda: a.copy("Q"), ValueError), (lambda: a.copy(order="C", stream=[]), TypeError),
                      (lambda: a.copy("C", "F"), TypeError), (lambda: a.copy(colour=1), TypeError),
                      (lambda: a.copy(order=None), ValueError)]:
        with pytest.raises(exc):
            call()
    gc.collect()
    assert (plain.bytes_allocated, plain.num_live, plain.num_allocations) == before
    a.release()
    with pytest.raises(ValueError, match="released"):
        a.copy()


def test_signatures():
    import inspect
    assert str(inspect.signature(mv.empty)) == "(shape, dtype='float64', *, order='C', device='cpu', pool=None)"
    assert str(inspect.signature(mv.zeros)) == "(shape, dtype='float64', *, order='C', device='cpu', pool=None)"
    assert str(inspect.signature(mv.Array.copy)) == "(self, /, order='C', *, stream=None, pool=None)"
