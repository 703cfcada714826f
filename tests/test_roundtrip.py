"""Round-trip mutation: writes on either side are seen on the other, without copies."""
import array
import mmap

import numpy as np
import pytest

import memview as mv


def test_numpy_writes_into_go_memory():
    a = mv.zeros((3, 4))
    n = np.asarray(a)
    assert n.ctypes.data == a.ptr  # same memory, not a copy
    assert n.shape == (3, 4) and n.dtype == np.float64 and n.strides == a.strides
    n[1, 2] = 7.5
    assert a[1, 2] == 7.5
    a[2, 3] = -1
    assert n[2, 3] == -1
    a[1:, 2:] = a[1:, 2:].copy()  # Go copies within the memory; NumPy sees it
    assert n[1, 2] == 7.5 and n[2, 3] == -1
    a[...] = mv.full((3, 4), 2.0)  # Go writes every element
    assert (n == 2.0).all()


@pytest.mark.parametrize("dtype", mv.DTYPES)
def test_numpy_dtype_matches(dtype):
    a = mv.zeros((2, 3), dtype)
    n = np.asarray(a)
    assert n.dtype == np.dtype(dtype)
    assert a.typestr == np.dtype(dtype).str
    assert a.itemsize == np.dtype(dtype).itemsize
    n[1, 1] = 1
    assert a[1, 1] == 1
    assert np.asarray(a).ctypes.data == a.ptr


def test_memoryview_round_trip():
    a = mv.arange(6, dtype="int32").reshape(2, 3)
    m = memoryview(a)
    assert m.shape == (2, 3) and m.strides == (12, 4) and m.format == "i" and not m.readonly
    m[1, 0] = 42
    assert a[1, 0] == 42
    a[0, 2] = -5
    assert m[0, 2] == -5
    assert m.tolist() == a.tolist() == [[0, 1, -5], [42, 4, 5]]
    m.release()


def test_strided_views_round_trip():
    a = mv.arange(24, dtype="float64").reshape(4, 6)
    v = a[::-1, 1::2]
    n = np.asarray(v)
    ref = np.arange(24, dtype=np.float64).reshape(4, 6)[::-1, 1::2]
    assert n.strides == v.strides == ref.strides
    assert (n == ref).all()
    n[0, 0] = 100
    assert a[3, 1] == 100
    assert np.shares_memory(np.asarray(a), n)


def test_numpy_memory_used_in_place_by_go():
    n = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = mv.from_buffer(n)
    assert a.ptr == n.ctypes.data and a.base is n
    a[::-1] = a.copy()  # Go reverses the rows in NumPy's memory
    assert (n == np.arange(12, dtype=np.float32).reshape(3, 4)[::-1]).all()
    a.fill(-1.0)
    assert (n == -1).all()


def test_other_exporters():
    b = bytearray(b"\x00" * 8)
    a = mv.from_buffer(b)
    a[3] = 65
    assert b[3] == 65 and a.dtype == "uint8"

    arr = array.array("d", [1.0, 2.0, 3.0])
    a = mv.from_buffer(arr)
    a[1] = 20.0
    assert arr[1] == 20.0 and a.dtype == "float64"

    mm = mmap.mmap(-1, 16)
    a = mv.from_buffer(mm)
    a[0] = 7
    assert mm[0] == 7
    del a
    mm.close()

    mem = memoryview(bytearray(range(10)))[2:8:2]
    a = mv.from_buffer(mem)
    assert a.tolist() == [2, 4, 6] and a.strides == (2,)
    a[1] = 99
    assert mem.obj[4] == 99


def test_read_only_sources():
    a = mv.from_buffer(b"hello")
    assert a.readonly
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 1
    assert memoryview(a).readonly and bytes(a) == b"hello"
    with pytest.raises(TypeError):
        memoryview(a)[0] = 1  # memoryview refuses writes to a read-only export
    n = np.asarray(a)
    assert not n.flags.writeable
    with pytest.raises(BufferError, match="read-only"):
        mv.from_buffer(b"hello", writable=True)
    frozen = np.zeros(3)
    frozen.flags.writeable = False
    with pytest.raises(BufferError, match="read-only"):  # NumPy's own refusal is a ValueError
        mv.from_buffer(frozen, writable=True)
    src = np.zeros(3)
    ro = mv.from_buffer(src, writable=False)
    assert ro.readonly and not np.asarray(ro).flags.writeable
    src[0] = 1  # the source itself stays writable
    assert ro[0] == 1


def test_copy_is_independent():
    a = mv.arange(6, dtype="float64").reshape(2, 3)
    c = a.copy()
    c[0, 0] = 99
    assert a[0, 0] == 0 and c.ptr != a.ptr and c.base is None
    f = a.copy(order="F")
    assert f.f_contiguous and not f.c_contiguous and f.tolist() == a.tolist()
