"""mv.Builder: 1-D arrays built item by item in Go-owned memory, from values,
iterables and buffers, with no Python list in between."""
import array
import gc
import math
import struct
import tracemalloc

import numpy as np
import pytest

import memview as mv
from memview import _core, _dtypes

BASIC = list(_dtypes.STRUCT)


def values_for(dtype):
    if dtype == "bool":
        return [True, False, 0, 1, 2.5, 0.0, "", "x", None]
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return [0, 1, int(info.min), int(info.max), 7.9, -0.5 if info.min else 0.5, True, np.int8(3)]
    if dtype.startswith("float"):
        return [0.0, -0.0, 1.5, 1, -(2 ** 40), 1e300, -1e300, math.inf, math.nan, 65519.0, 65520.0,
                2.0 ** -25, 3 * 2.0 ** -26, 2.0 ** -24, 1 / 3, np.float32(0.1), "2.5"]
    return [1 + 2j, 3, 2.5, complex(math.inf, -1), 1e300 + 1e300j]


@pytest.mark.parametrize("dtype", BASIC)
def test_values_convert_as_assignment_does(dtype):
    """Every value is stored exactly as memview's element assignment (_dtypes.pack)
    would store it: the C conversions and the packer agree, NaN and infinities,
    float16 rounding ties and overflow included."""
    vals = values_for(dtype)
    b = mv.Builder(dtype)
    for v in vals:
        b.append(v)
    a = b.finish()
    assert a.shape == (len(vals),) and a.dtype == dtype and a.base is None and not a.readonly
    assert a.tobytes() == b"".join(_dtypes.pack(dtype, v) for v in vals)


@pytest.mark.parametrize("dtype", BASIC)
def test_extend_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    ref = (rng.standard_normal(1000) * 100).astype(dtype)
    b = mv.Builder(dtype)
    b.extend(ref.tolist())           # a list
    b.extend(iter(ref.tolist()))     # an iterator
    b.extend(x for x in ref.tolist())  # a generator
    b.extend(ref)                    # a buffer of the same dtype: one copy
    a = b.finish()
    assert np.array_equal(np.asarray(a), np.concatenate([ref] * 4), equal_nan=True)


def test_growth_and_capacity():
    b = mv.Builder("int64")
    assert (len(b), b.capacity, b.nbytes, b.itemsize, b.dtype) == (0, 0, 0, 8, "int64")
    caps = []
    for i in range(100):
        b.append(i)
        if not caps or caps[-1] != b.capacity:
            caps.append(b.capacity)
    assert caps == [8, 16, 32, 64, 128]  # 64 bytes, then doubling
    b.reserve(1000)
    assert b.capacity == 1104 and len(b) == 100  # what is needed when more than 2x, rounded to 64 bytes
    a = b.finish()
    assert a.tolist() == list(range(100))
    assert len(b) == 0 and b.capacity == 0  # empty again, reusable
    b.extend(range(3))
    assert b.finish().tolist() == [0, 1, 2]
    assert b.finish().shape == (0,)


def test_finish_keeps_or_shrinks_the_capacity():
    p = mv.Pool("host")
    b = mv.Builder("uint8", pool=p)
    b.extend(range(100))  # capacity 128
    a = b.finish(shrink_to_fit=False)
    assert p.bytes_allocated == 128
    b.extend(range(100))
    c = b.finish()  # shrunk: 100 rounded up to 64 bytes
    assert p.bytes_allocated == 128 + 128 and c.tolist() == list(range(100))
    b.extend(range(65))
    d = b.finish()
    assert p.bytes_allocated == 256 + 128 and d.nbytes == 65
    del a, c, d, b
    gc.collect()
    assert p.num_live == 0


def test_extend_from_buffers():
    b = mv.Builder("float64")
    n = np.arange(12.0).reshape(3, 4)
    b.extend(n[::-1, ::2])               # same dtype, strided: C order, one copy
    b.extend(array.array("d", [0.5]))
    b.extend(np.arange(3, dtype=np.int32))  # another dtype: converted item by item
    b.extend(memoryview(b"\x01\x02"))    # bytes are numbers, as in np.fromiter
    assert b.finish().tolist() == [8.0, 10.0, 4.0, 6.0, 0.0, 2.0, 0.5, 0.0, 1.0, 2.0, 1.0, 2.0]
    u = mv.Builder("uint8")
    u.extend(b"abc")
    u.extend(bytearray(b"d"))
    assert u.finish().tobytes() == b"abcd"
    i = mv.Builder("int64")
    i.extend(np.array([1, 2], dtype=np.int64))  # format 'l' is int64 too
    i.extend(array.array("q", [3]))
    assert i.finish().tolist() == [1, 2, 3]
    with pytest.raises(TypeError):
        mv.Builder("float64").extend(np.zeros((2, 2), dtype=np.int32))  # 2-d and another dtype


def test_no_python_list_in_between():
    """Extending from a generator of 10^6 floats allocates no Python memory in
    proportion (a list of them would take ~32 MB): the items go straight to Go
    memory, which tracemalloc does not see."""
    b = mv.Builder("float64")
    gen = (i * 0.5 for i in range(1_000_000))
    tracemalloc.start()
    try:
        b.extend(gen)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20, peak
    a = b.finish()
    assert a.shape == (1_000_000,) and a[999_999] == 499_999.5


@pytest.mark.parametrize("dtype, value, exc, text", [
    ("uint8", 256, OverflowError, "Python integer 256 out of bounds for uint8"),
    ("int8", -129, OverflowError, "Python integer -129 out of bounds for int8"),
    ("uint64", -1, OverflowError, "Python integer -1 out of bounds for uint64"),
    ("int64", 1 << 63, OverflowError, "out of bounds for int64"),
    ("int32", 1e10, OverflowError, "Python integer 10000000000 out of bounds for int32"),
    ("int16", math.nan, ValueError, "cannot convert float NaN to integer"),
    ("int64", math.inf, OverflowError, "cannot convert float infinity to integer"),
    ("float64", object(), TypeError, None),
    ("float64", "x", ValueError, None),
    pytest.param("float64", 1 << 1100, OverflowError, None, id="float64-huge-int"),
    ("complex64", "a", ValueError, None),
    ("int8", "x", ValueError, None),  # a str is read as a number, as NumPy reads it
])
def test_bad_values(dtype, value, exc, text):
    b = mv.Builder(dtype)
    b.append(1)
    with pytest.raises(exc, match=text):
        b.append(value)
    with pytest.raises(exc):
        b.extend([2, value, 3])
    assert len(b) == 2  # the item before the failing one stays, as with list.extend
    b.append(4)
    assert b.finish().tolist() == [1, 2, 4]


def test_errors_from_the_iterable():
    def gen():
        yield 1.0
        raise KeyError("from the generator")
    b = mv.Builder("float64")
    with pytest.raises(KeyError):
        b.extend(gen())
    with pytest.raises(TypeError):
        b.extend(3)
    assert b.finish().tolist() == [1.0]


def test_reentrant_use_from_the_iterable():
    """A generator that appends to (or finishes) the builder it feeds: no crash,
    every item lands."""
    b = mv.Builder("int64")
    kept = []

    def gen():
        for i in range(200):
            if i % 50 == 0:
                b.append(-i)
            if i == 120:
                kept.append(b.finish())
            yield i
    b.extend(gen())
    first, rest = kept[0].tolist(), b.finish().tolist()
    assert sorted(first + rest) == sorted(list(range(200)) + [0, -50, -100, -150])
    assert first[:3] == [0, 0, 1]


def test_records_and_other_dtypes():
    b = mv.Builder("T{<i:a:<d:b:}")
    b.append((1, 2.5))
    b.extend([(3, 4.5), {"a": 5, "b": 6.5}])
    a = b.finish()
    assert a.tolist() == [(1, 2.5), (3, 4.5), (5, 6.5)] and a.itemsize == 12
    c = mv.Builder(">f8")
    c.extend([1.0, 2.0])
    assert c.finish().tobytes() == struct.pack(">dd", 1.0, 2.0)
    s = mv.Builder("S3")
    s.extend([b"ab", b"abc"])
    assert s.finish().tobytes() == b"ab\x00abc"
    assert mv.Builder(np.float32).dtype == "float32" and mv.Builder("f8").dtype == "float64"
    assert isinstance(mv.Builder("i2").dtype, mv.dtype) and mv.Builder("i2").dtype == np.int16


def test_pool_and_bad_arguments():
    p = mv.CheckedPool()
    b = mv.Builder("float64", pool=p)
    b.extend(range(10))
    assert p.num_live == 1
    a = b.finish()
    assert p.num_live == 1 and len(p.leaks()) == 1
    del a
    gc.collect()
    assert p.num_live == 0 and p.leaks() == []
    for args, kwargs, exc in [(("nope",), {}, TypeError), ((), {"pool": 3}, TypeError),
                              (("float64", 1), {}, TypeError)]:
        with pytest.raises(exc):
            mv.Builder(*args, **kwargs)
    b = mv.Builder("int8")
    for n, exc in [(-1, ValueError), (1 << 62, MemoryError), ("x", TypeError)]:
        with pytest.raises(exc):
            b.reserve(n)
    with pytest.raises(TypeError):
        _core.BuilderBase()
    with pytest.raises(TypeError):
        object.__new__(mv.Builder)


def test_release():
    b = mv.Builder("int32")
    b.extend(range(100))
    with b:
        assert repr(b) == "memview.Builder('int32': 100 items, capacity 128)"
    assert b.released and repr(b) == "<released memview.Builder>"
    b.release()
    for op in (lambda: b.append(1), lambda: b.extend([1]), lambda: b.finish(), lambda: b.reserve(1)):
        with pytest.raises(ValueError):
            op()
    assert len(b) == 0


def test_threads_sharing_a_builder():
    """Threads extending one builder (their generators give the GIL up between
    items) lose nothing and never crash; large growth runs without the GIL, and
    a call meeting it gets BufferError."""
    import threading
    b = mv.Builder("int64")
    refused = []

    def work(k):
        for _ in range(5):
            try:
                b.extend(k for _ in range(20_000))
            except BufferError:
                refused.append(k)
    ts = [threading.Thread(target=work, args=(k,)) for k in (1, 2, 3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    a = np.asarray(b.finish())
    assert set(np.unique(a)) <= {1, 2, 3}
    # every extend either completed or was refused part-way: items are whole
    assert a.size <= 3 * 5 * 20_000 and (a.size == 3 * 5 * 20_000 or refused)
