"""mv.Buffer: Arrow-style raw bytes — size and capacity, mutability, slices that
keep their parent alive, resizable buffers, the buffer protocol as bytes, and
arrays laid over a buffer."""
import array
import copy
import gc
import pickle
import threading

import numpy as np
import pytest

import memview as mv
from memview import _core

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")


@pytest.fixture
def pool():
    """A pool of its own, so statistics can be checked exactly."""
    p = mv.Pool("host")
    yield p
    gc.collect()
    assert p.num_live == 0 and p.bytes_allocated == 0


@pytest.mark.parametrize("size, capacity", [(0, 0), (1, 64), (64, 64), (65, 128), (1000, 1024),
                                            ((1 << 20) + 1, (1 << 20) + 64)])
def test_size_and_capacity(pool, size, capacity):
    b = mv.Buffer(size, pool=pool)
    assert (b.size, len(b), b.capacity) == (size, size, capacity)
    assert b.address % 64 == 0
    assert b.is_mutable and not b.is_resizable and b.parent is None and b.device == "cpu"
    # the pool counts the capacity, as Arrow's pools do
    assert (pool.bytes_allocated, pool.num_live, pool.num_allocations) == (capacity, 1, 1)
    assert bytes(b) == bytes(size)
    b.release()
    assert pool.bytes_allocated == 0 and pool.total_bytes_allocated == capacity


def test_buffer_protocol_is_bytes():
    b = mv.Buffer(b"hello world")
    with memoryview(b) as m:
        assert (m.format, m.itemsize, m.ndim, m.shape, m.strides, m.readonly) == ("B", 1, 1, (11,), (1,), False)
        assert m.tobytes() == b"hello world" and m.obj is b
        m[0] = ord("H")
    n = np.frombuffer(b, dtype=np.uint8)
    assert n.ctypes.data == b.address  # no copy
    n[-1] = ord("D")
    assert bytes(b) == b"Hello worlD"
    del n
    assert b._exports == 0


REQUESTS = {name: getattr(tb, name) for name in (
    "PyBUF_SIMPLE", "PyBUF_ND", "PyBUF_STRIDES", "PyBUF_INDIRECT", "PyBUF_C_CONTIGUOUS",
    "PyBUF_F_CONTIGUOUS", "PyBUF_ANY_CONTIGUOUS", "PyBUF_FULL", "PyBUF_FULL_RO", "PyBUF_RECORDS",
    "PyBUF_RECORDS_RO", "PyBUF_STRIDED", "PyBUF_STRIDED_RO", "PyBUF_CONTIG", "PyBUF_CONTIG_RO")}


@pytest.mark.parametrize("mutable", [True, False])
@pytest.mark.parametrize("modifier", [0, tb.PyBUF_WRITABLE, tb.PyBUF_FORMAT, tb.PyBUF_WRITABLE | tb.PyBUF_FORMAT])
@pytest.mark.parametrize("request_name", list(REQUESTS))
def test_every_request_as_testbuffer(request_name, modifier, mutable):
    """Each request succeeds or fails as for _testbuffer.ndarray of the same bytes,
    and fills the same fields."""
    flags = REQUESTS[request_name] | modifier
    data = bytes(range(10))
    b = mv.Buffer(data, mutable=mutable)
    ref = tb.ndarray(list(data), shape=[10], format="B", flags=tb.ND_WRITABLE if mutable else 0)

    def get(x):
        try:
            return tb.ndarray(x, getbuf=flags), None
        except BufferError as e:
            return None, e
    want, want_err = get(ref)
    got, got_err = get(b)
    assert (got_err is None) == (want_err is None), (want_err, got_err)
    if got is None:
        assert b._exports == 0
        return
    for field in ("ndim", "shape", "strides", "suboffsets", "itemsize", "nbytes", "format", "readonly",
                  "c_contiguous", "f_contiguous", "contiguous"):
        assert getattr(got, field) == getattr(want, field), field
    assert got.tobytes() == data and got.obj is b and b._exports == 1
    del got
    assert b._exports == 0


def test_copy_of_any_exporter():
    n = np.arange(12, dtype=np.int16).reshape(3, 4)
    for src in (n, n[::-1, ::2], n.T, array.array("d", [1.5, 2.5]), memoryview(b"abc"), bytearray(b"xy")):
        b = mv.Buffer(src)
        assert bytes(b) == memoryview(src).tobytes(order="C")  # a copy in C order
        assert b.address != np.frombuffer(memoryview(src).tobytes(), np.uint8).ctypes.data


def test_immutable_buffer():
    b = mv.Buffer(b"abc", mutable=False)
    assert not b.is_mutable
    with memoryview(b) as m:
        assert m.readonly
        with pytest.raises(TypeError):
            m[0] = 1
    with pytest.raises(BufferError):
        tb.ndarray(b, getbuf=tb.PyBUF_WRITABLE)
    assert b._exports == 0
    with pytest.raises(ValueError):
        np.frombuffer(b, np.uint8)[0] = 1  # NumPy sees it read-only
    a = b.view("uint8")
    assert a.readonly
    with pytest.raises(ValueError):
        a[0] = 1
    del a


@pytest.mark.parametrize("args, kwargs, exc", [
    ((-1,), {}, ValueError),
    ((1 << 70,), {}, MemoryError),
    (((1 << 62),), {}, MemoryError),
    (("abc",), {}, TypeError),
    ((1.5,), {}, TypeError),
    ((True,), {}, TypeError),
    ((None,), {}, TypeError),
    ((object(),), {}, TypeError),
    ((10,), {"pool": "host"}, TypeError),
    ((10,), {"resizable": "yes"}, TypeError),
    ((10,), {"mutable": False}, ValueError),
    ((b"ab",), {"resizable": True, "mutable": False}, ValueError),
    ((), {}, TypeError),
])
def test_bad_arguments(args, kwargs, exc):
    with pytest.raises(exc):
        mv.Buffer(*args, **kwargs)


def test_cannot_be_made_another_way():
    with pytest.raises(TypeError):
        _core.BufferBase()
    with pytest.raises(TypeError):
        object.__new__(mv.Buffer)
    with pytest.raises(TypeError):
        _core.BufferBase.__new__(mv.Buffer)
    b = mv.Buffer(4)
    with pytest.raises(TypeError):
        copy.copy(b)
    with pytest.raises(TypeError):
        pickle.dumps(b)
    with pytest.raises(TypeError):
        hash(b)
    with pytest.raises(TypeError):
        _core.set_buffer_type(int)


def test_slices_keep_the_parent_alive(pool):
    b = mv.Buffer(b"0123456789", pool=pool)
    s = b.slice(2, 5)
    m = b.mutable_slice(4)
    assert (bytes(s), s.size, s.capacity, s.is_mutable, s.parent) == (b"23456", 5, 5, False, b)
    assert (bytes(m), m.is_mutable, m.address - b.address) == (b"456789", True, 4)
    memoryview(m)[0] = ord("x")  # writes through to the parent and the other slice
    assert bytes(b) == b"0123x56789" and bytes(s) == b"23x56"
    ss = s.slice(1, 2)
    assert bytes(ss) == b"3x" and ss.parent is s
    assert memoryview(s).readonly
    with pytest.raises(BufferError):
        s.mutable_slice(0, 1)
    b.release()
    del b, s, m
    gc.collect()
    assert pool.num_live == 1 and bytes(ss) == b"3x"  # the slice of a slice still holds it
    del ss
    gc.collect()
    assert pool.num_live == 0


@pytest.mark.parametrize("offset, length, exc", [
    (-1, 2, ValueError), (0, -1, ValueError), (8, 3, IndexError), (11, 0, IndexError),
    (1, 1 << 62, IndexError), (1 << 70, 0, MemoryError), (1.0, 2, TypeError), (0, "2", TypeError),
    (True, 1, TypeError),
])
def test_bad_slices(offset, length, exc):
    b = mv.Buffer(10)
    with pytest.raises(exc):
        b.slice(offset, length)
    assert bytes(b.slice(10, 0)) == b"" and bytes(b.slice(3)) == bytes(7)


def test_resize_and_reserve(pool):
    b = mv.Buffer(b"0123456789", pool=pool, resizable=True)
    assert b.is_resizable and (b.size, b.capacity) == (10, 64)
    steps = [
        (lambda: b.resize(40), 40, 64),
        (lambda: b.resize(100, shrink_to_fit=False), 100, 128),
        (lambda: b.resize(5, shrink_to_fit=False), 5, 128),
        (lambda: b.resize(10), 10, 128),  # within the capacity: no reallocation
        (lambda: b.resize(3), 3, 64),  # shrink to fit
        (lambda: b.reserve(10), 3, 64),
        (lambda: b.reserve(1000), 3, 1024),
    ]
    for step, size, capacity in steps:
        step()
        assert (b.size, b.capacity, pool.bytes_allocated) == (size, capacity, capacity)
    assert bytes(b) == b"012"
    b.resize(8)  # the bytes given up were zeroed: the padding stays zero
    assert bytes(b) == b"012" + bytes(5)
    b.resize(0)
    assert (b.size, b.capacity, bytes(b)) == (0, 0, b"")


def test_resize_refused_while_used():
    b = mv.Buffer(64, resizable=True)
    holders = {
        "memoryview": lambda: memoryview(b),
        "numpy": lambda: np.frombuffer(b, np.uint8),
        "array": lambda: b.view("float64"),
        "slice": lambda: b.slice(8, 8),
    }
    for name, hold in holders.items():
        h = hold()
        for op in (lambda: b.resize(1000), lambda: b.reserve(1000), lambda: b.resize(1)):
            with pytest.raises(BufferError):
                op()
            assert (b.size, b.capacity) == (64, 64), name
        if isinstance(h, memoryview):
            h.release()
        del h
        gc.collect()
        b.resize(65)
        b.resize(64)
    with pytest.raises(ValueError):
        mv.Buffer(8).resize(16)  # not resizable
    with pytest.raises(ValueError):
        b.resize(-1)
    with pytest.raises(TypeError):
        b.reserve("big")


def test_statistics_exact_after_mixed_operations(pool):
    x = mv.Buffer(100, pool=pool)                      # 128
    r = mv.Buffer(10, pool=pool, resizable=True)       # 64
    a = mv.empty(3, "float64", pool=pool)              # 24 -> 64
    stats = lambda: (pool.bytes_allocated, pool.max_memory, pool.total_bytes_allocated,
                     pool.num_allocations, pool.num_live)
    assert stats() == (256, 256, 256, 3, 3)
    r.resize(300)                                      # 64 -> 320: +256, one more allocation
    assert stats() == (512, 512, 512, 4, 3)
    s = x.slice(10, 20)                                # a slice allocates nothing
    x.release()
    del x
    assert stats() == (512, 512, 512, 4, 3)
    del s
    gc.collect()
    assert stats() == (384, 512, 512, 4, 2)
    r.resize(64)                                       # 320 -> 64: frees 256
    assert stats() == (128, 512, 512, 4, 2)
    c = a.copy(pool=pool)
    assert stats() == (192, 512, 576, 5, 3)
    del a, c, r
    gc.collect()
    assert stats() == (0, 512, 576, 5, 0)


def test_arrays_over_one_buffer():
    b = mv.Buffer(64)
    head = b.view("int32", (4,))
    tail = b.view("float64", (2, 2), offset=32)
    rev = b.view("int32", (4,), strides=(-4,), offset=12)
    assert head.base is b and tail.base is b
    n = np.asarray(tail)
    n[1, 1] = 2.5
    head[...] = [1, 2, 3, 4]
    assert rev.tolist() == [4, 3, 2, 1]
    assert np.frombuffer(b, np.float64)[7] == 2.5
    assert b.view("uint8").shape == (64,) and b.view("float64", offset=16).shape == (6,)
    b.release()  # the arrays keep the memory
    assert head.tolist() == [1, 2, 3, 4] and tail[1, 1] == 2.5
    del n


@pytest.mark.parametrize("args, kwargs, exc", [
    (("float64", (9,)), {}, ValueError),               # beyond the extent
    (("float64", (2,)), {"offset": 57}, ValueError),
    (("int32", (4,)), {"strides": (-4,)}, ValueError),  # reaches below the start
    (("int32", (2,)), {"strides": (4, 4)}, ValueError),
    (("float64",), {"offset": 3}, ValueError),          # not a whole number of items
    (("float64",), {"offset": -8}, ValueError),
    (("nope", (1,)), {}, TypeError),
    (("int8", "x"), {}, TypeError),
    (("int8", (2,)), {"strides": 1}, TypeError),
    (("int8", (2,)), {"offset": 1.5}, TypeError),
    (("float64",), {"device": "cpu"}, TypeError),
])
def test_bad_views(args, kwargs, exc):
    b = mv.Buffer(64)
    with pytest.raises(exc):
        b.view(*args, **kwargs)


def test_view_on_devices_without_a_copy():
    b = mv.Buffer(16)
    assert b.view("cpu") is b and b.view(device="cpu") is b and b.view_or_copy("cpu") is b
    with pytest.raises(BufferError):
        b.view("cuda")  # pageable host memory: a CUDA device cannot address it
    with pytest.raises(BufferError):
        b.view("cuda_host")
    with pytest.raises(ValueError):
        b.view(device="gpu")
    a = mv.arange(4.0)
    assert a.view("cpu") is a and a.view_or_copy("cpu") is a
    with pytest.raises(BufferError):
        a.view("cuda:0")
    with pytest.raises(TypeError):
        a.view(0)


@pytest.mark.skipif(mv.cuda.is_available(), reason="checks the behaviour without a CUDA driver")
def test_view_or_copy_without_cuda():
    b = mv.Buffer(16)
    with pytest.raises(mv.cuda.CUDAError):
        b.view_or_copy("cuda")
    with pytest.raises(mv.cuda.CUDAError):
        mv.arange(3.0).view_or_copy("cuda:0")


def test_release_and_released_state():
    b = mv.Buffer(b"abc")
    m = memoryview(b)
    with pytest.raises(BufferError):
        b.release()
    m.release()
    with b:
        pass
    assert b.released and repr(b) == "<released memview.Buffer>"
    assert (b.size, b.capacity, len(b)) == (0, 0, 0)
    b.release()  # twice is harmless
    with pytest.raises(BufferError):
        memoryview(b)
    for op in (lambda: b.slice(0, 1), lambda: b.view("uint8"), lambda: b.view("cpu"),
               lambda: b.view_or_copy("cpu")):
        with pytest.raises(ValueError):
            op()


def test_repr():
    b = mv.Buffer(b"abc", mutable=False)
    assert repr(b).startswith("memview.Buffer(size=3, capacity=64, mutable=False, address=0x")
    assert "slice" in repr(b.slice(1))
    assert "resizable=True" in repr(mv.Buffer(1, resizable=True))


def test_concurrent_resize_and_use():
    """Threads resizing and viewing one buffer get results or BufferError, never a crash."""
    b = mv.Buffer(1 << 16, resizable=True)
    errors = []

    def resize():
        for i in range(200):
            try:
                b.resize((1 << 16) + (i % 3) * (1 << 17))
            except BufferError:
                pass
            except Exception as e:  # pragma: no cover - reported below
                errors.append(e)

    def view():
        for _ in range(200):
            try:
                a = b.view("uint8", (16,))
                a[0] = 1
                del a
            except BufferError:
                pass
            except Exception as e:  # pragma: no cover
                errors.append(e)
    ts = [threading.Thread(target=f) for f in (resize, view, resize)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
