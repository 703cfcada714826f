"""Items NumPy has, read and written as NumPy does through memview: void fields and
items as bytes, record arrays of the same layout spelled differently, np.void
scalars, sub-array elements, long doubles ('g', 'Zg'), UCS-4 strings ('w'), the '^'
prefix, float16 NaN payloads; 'O' and '&' refused saying why."""
import struct

import numpy as np
import pytest

import memview as mv


def test_named_and_unnamed_void_as_bytes():
    x = np.zeros(2, [("a", "i1"), ("n", "V3")])
    a = mv.from_buffer(x)
    assert a.tolist() == [(0, b"\0\0\0"), (0, b"\0\0\0")] == x.tolist()
    a[1] = (5, b"xyz")
    assert x[1]["n"].tobytes() == b"xyz" and x[1]["a"] == 5
    v = mv.from_buffer(np.zeros(2, "V4"))
    v[0] = b"wxyz"
    assert v.tolist() == [b"wxyz", b"\0\0\0\0"] and v[0] == b"wxyz"
    with pytest.raises(ValueError):
        v[1] = b"too long"
    assert v.tolist() == [b"wxyz", b"\0\0\0\0"]  # nothing changed
    a.release()
    v.release()


def test_record_arrays_of_one_layout_assign_whatever_their_spelling():
    packed = np.dtype([("a", "<i4"), ("b", "<f8")])
    src = np.array([(1, 1.5), (2, 2.5)], packed)
    assert memoryview(src).format == "T{i:a:=d:b:}"
    dst = mv.zeros(2, "T{<i:a:<d:b:}")  # another spelling of the same layout
    dst[:] = src
    assert dst.tolist() == src.tolist()
    dst[0] = src[1]  # an np.void record scalar
    assert dst.tolist() == [(2, 2.5), (2, 2.5)]
    dst[1] = np.array((7, 7.5), packed)[()]
    assert dst[1] == (7, 7.5)
    other = mv.from_buffer(np.zeros(2, packed))
    other[:] = dst  # memview to memview, different format strings
    assert other.tolist() == dst.tolist()
    assert dst.dtype == other.dtype == packed
    dst.release()
    other.release()


def test_subarray_elements_assign():
    a = mv.zeros(2, "(2,3)f")
    a[0] = [[1, 2, 3], [4, 5, 6]]
    a[1] = np.arange(6, dtype="f4").reshape(2, 3)
    assert a.tolist() == [[[1, 2, 3], [4, 5, 6]], [[0, 1, 2], [3, 4, 5]]]
    a[:] = a.tolist()[::-1]
    assert a.tolist()[0] == [[0, 1, 2], [3, 4, 5]]
    assert np.dtype(a.dtype) == np.dtype(("<f4", (2, 3)))
    a.release()


def test_long_double():
    if np.dtype(np.longdouble).itemsize != 16:
        pytest.skip("long double is not 16 bytes here (x87 extended on x86-64, binary128 on aarch64)")
    vals = [1.5, 1 / 3, -2.0**-1070, 1e308, float("inf")]
    x = np.array(vals, np.longdouble)
    a = mv.from_buffer(x)
    assert a.format == "g" and a.itemsize == 16 and a.dtype == np.longdouble
    assert a.tolist() == vals and all(type(v) is float for v in a.tolist())
    a[1] = 0.1
    assert x[1] == np.longdouble(0.1)  # written exactly: the same bits as NumPy's
    x[0] = np.longdouble(1) + np.longdouble(2.0**-60)  # not a float64: the nearest one
    assert a[0] == 1.0
    big = np.array([np.finfo(np.longdouble).max], np.longdouble)
    assert mv.from_buffer(big).tolist() == [float("inf")]
    with mv.zeros(3, np.longdouble) as z:
        z[:] = [1, 2.5, -0.0]
        assert np.asarray(z).tolist() == [1, 2.5, -0.0] and np.asarray(z).dtype == np.longdouble
        c = np.array([1 + 2j], np.clongdouble)
        with mv.from_buffer(c) as ca:
            assert ca.tolist() == [1 + 2j] and ca.format == "Zg"
            ca[0] = 3 - 1j
            assert c[0] == 3 - 1j
    a.release()


def test_ucs4_strings():
    x = np.array(["ab", "", "é😀z"], "U3")
    a = mv.from_buffer(x)
    assert a.format == "3w" and a.tolist() == x.tolist() == ["ab", "", "é😀z"]
    a[1] = "xyzw"  # truncated, as NumPy truncates
    assert x[1] == "xyz"
    rec = np.zeros(1, [("s", ">U2"), ("i", "<i2")])
    r = mv.from_buffer(rec)
    r[0] = ("hé", 3)
    assert rec.tolist() == [("hé", 3)] and r.tolist() == rec.tolist()
    a.release()
    r.release()


def test_unaligned_native_prefix():
    a = mv.zeros(2, "^bd")  # native sizes, no alignment
    assert a.itemsize == 9
    a[0] = (1, 2.5)
    assert a.tolist()[0] == (1, 2.5)
    assert struct.calcsize("=bd") == 9
    a.release()


def test_float16_nan_payload_as_numpy():
    nan = struct.unpack("<d", bytes.fromhex("00000000000cf87f"))[0]  # a quiet NaN with payload
    n = np.zeros(3, np.float16)
    n[0], n[1] = nan, float("nan")
    a = mv.zeros(3, "float16")
    a[0], a[1] = nan, float("nan")
    assert bytes(memoryview(a)) == n.tobytes()  # 037e and 007e, as NumPy writes them
    rec = mv.zeros(1, "T{<e:h:}")
    rec[0] = (nan,)
    assert bytes(memoryview(rec)) == n[:1].tobytes()
    back = a.tolist()[0]
    assert struct.pack("<d", back) == struct.pack("<d", float(n[0]))  # the payload read back as NumPy does
    a.release()
    rec.release()


def test_objects_and_pointers_refused_saying_why():
    with pytest.raises(TypeError, match="Python object references .* reference counting"):
        mv.from_buffer(np.zeros(2, object))
    with pytest.raises(TypeError, match="pointers"):
        mv.zeros(2, "&i")
    with pytest.raises(TypeError, match="Python objects"):
        mv.zeros(2, np.dtype([("a", "i4"), ("o", "O")]))


def test_one_aligned_element_of_a_packed_record():
    # NumPy writes "T{d:a:b:b:}" (16 bytes under '@') for one aligned element of a
    # packed 9-byte dtype; the items are that record without its trailing padding
    packed = np.dtype([("a", "<f8"), ("b", "i1")])
    x = np.array([(1.5, 7)], packed)
    assert memoryview(x).format == "T{d:a:b:b:}" and x.itemsize == 9
    a = mv.from_buffer(x)
    assert a.itemsize == 9 and a.tolist() == [(1.5, 7)] and a.dtype == packed
    assert np.asarray(a).dtype == packed  # exported in its canonical spelling, which NumPy reads
    a[0] = (2.5, 8)
    assert x.tolist() == [(2.5, 8)]
    a.release()
