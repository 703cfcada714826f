"""Re-exports keep the exporter's format string where NumPy reads it as memview does:
memoryview(mv.from_buffer(x)).format is memoryview(x).format for such formats of the
struct module's grammar (through CPython's reference exporter _testbuffer) and every
one NumPy writes, and so are the formats of views of imported arrays. Where NumPy
reads a format otherwise (it pads the whole item as a record, "ix" is 8 bytes to it
and 5 to struct; it has no 'n', 'N' or 'P'; it reads no whitespace), the array
exports a spelling that struct and NumPy both read as memview does. Arrays memview
makes have the canonical spelling of their type, and spelling never decides whether
two types are one."""
import itertools
import struct

import numpy as np
import pytest
from numpy._core._internal import _dtype_from_pep3118

import memview as mv

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")

# Every code of struct's grammar with every prefix it takes, with a count, and a few
# multi-item and spaced spellings: (format, one item's values for struct.pack).
_CODES = {"?": True, "c": b"x", "b": -3, "B": 200, "h": -300, "H": 60000, "i": -7, "I": 7, "l": -9, "L": 9,
          "q": -(1 << 40), "Q": 1 << 60, "e": 1.5, "f": -2.25, "d": 3.125, "s": b"ab", "p": b"pq"}
_NATIVE_ONLY = {"n": -11, "N": 11, "P": 0x1000}
STRUCT_FORMATS = []
for code, v in _CODES.items():
    for prefix in ("", "@", "=", "<", ">", "!"):
        STRUCT_FORMATS.append((prefix + code, (v,)))
    STRUCT_FORMATS.append(("3" + code, (v,) if code in "sp" else (v, v, v)))
for code, v in _NATIVE_ONLY.items():
    STRUCT_FORMATS += [(code, (v,)), ("@" + code, (v,))]
STRUCT_FORMATS += [("hd", (1, 2.5)), ("<hd", (1, 2.5)), ("i 2x d", (4, 0.5)), (">bhiq", (1, 2, 3, 4)),
                   ("?3sqd", (True, b"abc", 5, 6.5)), ("xxh", (8,)), (" d ", (1.0,))]


def numpy_reading(fmt):
    """The dtype NumPy reads from a buffer of format fmt (np.asarray's reader), or None."""
    try:
        return _dtype_from_pep3118(fmt)
    except (ValueError, TypeError, KeyError, IndexError, NotImplementedError, RuntimeError):
        return None


@pytest.mark.parametrize("fmt, values", STRUCT_FORMATS, ids=[f for f, _ in STRUCT_FORMATS])
def test_struct_formats_pass_through_where_numpy_reads_them_alike(fmt, values):
    items = [values if len(values) > 1 else values[0]] * 3
    ref = tb.ndarray(items, shape=[3], format=fmt, flags=tb.ND_WRITABLE)
    a = mv.from_buffer(ref)
    m, r = memoryview(a), memoryview(ref)
    assert r.format == fmt
    assert (m.itemsize, m.shape, m.strides, m.tobytes()) == (r.itemsize, r.shape, r.strides, r.tobytes())
    theirs = numpy_reading(fmt)
    if m.format == fmt:
        # NumPy reads it alike, or reads no spelling of it (Pascal strings)
        assert (theirs is not None and theirs.itemsize == r.itemsize) or "p" in fmt
    else:
        # a spelling struct and NumPy read alike, with the same values
        assert theirs is None or theirs.itemsize != r.itemsize
        assert struct.calcsize(m.format) == r.itemsize
        assert struct.unpack_from(m.format, m, a.itemsize) == struct.unpack_from(fmt, r, ref.itemsize)
        assert numpy_reading(m.format).itemsize == r.itemsize
        assert np.asarray(a).tobytes() == r.tobytes()
    # views and a re-export of the re-export keep it too
    for v in (a[1:], a[::-1], a[::2], a.reshape(1, 3).T, a[None]):
        with memoryview(v) as vm:
            assert vm.format == m.format
    again = tb.ndarray(a, getbuf=tb.PyBUF_FULL_RO)
    assert again.format == m.format
    # a copy is memview's own array: the canonical spelling of the same type
    with a.copy() as c:
        assert c.itemsize == a.itemsize and c.tobytes() == a.tobytes()
        assert c.dtype == a.dtype
        with memoryview(c) as cm:
            assert struct.calcsize(cm.format) == struct.calcsize(fmt)
    del m, r, again
    a.release()


NUMPY_DTYPES = [
    "?", "i1", "u1", "<i2", ">u2", "i4", ">i4", "=i8", "q", "l", "n", "N", "p", "P", "<f2", ">f4", "f8", "g", "c8",
    ">c16", "G", "S1", "S7", "U1", "U5", ">U3", "V1", "V6",
    np.dtype([("a", "i1"), ("b", "<f8")]),
    np.dtype([("a", "i1"), ("b", "<f8")], align=True),
    np.dtype([("a", ">i2"), ("s", "S3"), ("u", "U2"), ("v", "V3"), ("m", "<f4", (2, 3))]),
    np.dtype([("k", "g"), ("kx", "G"), ("m", "U4"), ("p", "e")]),
    np.dtype([("id", "u1"), ("pos", np.dtype([("x", "<f8"), ("k", "u1")], align=True))], align=True),
    np.dtype(("<f8", (2, 2))),
]


@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_numpy_formats_pass_through_unchanged(dt):
    x = np.zeros((2, 3), dt)
    a = mv.from_buffer(x)
    with memoryview(a) as m, memoryview(x) as r:
        assert m.format == r.format
        assert (m.itemsize, m.shape, m.strides) == (r.itemsize, r.shape, r.strides)
    with memoryview(a[:, ::-2]) as m, memoryview(x[:, ::-2]) as r:
        assert m.format == r.format
    with memoryview(x) as r:
        assert np.asarray(a).dtype == np.asarray(r).dtype  # NumPy's own reading of its format
    a.release()


def test_sameness_is_layout_not_spelling():
    for one, _other in itertools.combinations(["q", "<q", "=q", "l", "@l", "n", "int64", "<i8"], 2):
        x = tb.ndarray([1, 2, 3], shape=[3], format=one, flags=tb.ND_WRITABLE) if one not in ("int64", "<i8") \
            else np.arange(3, dtype=np.int64)
        y = np.array([7, 8, 9], dtype=np.int64)
        a, b = mv.from_buffer(x), mv.from_buffer(y)
        assert a.dtype == b.dtype == "int64"
        a[:] = b  # a copy, not a conversion through Python values
        assert a.tolist() == [7, 8, 9]
        a.release()
        b.release()
    # a standard-size long is 4 bytes: another type
    i4 = mv.from_buffer(tb.ndarray([1, 2], shape=[2], format="<l"))
    assert i4.dtype == "int32" and i4.dtype != "int64"
    i4.release()


def test_made_arrays_have_the_canonical_spelling():
    for spelling in ("q", "<q", "=q", "<i8", "int64", "l"):
        with mv.zeros(2, dtype=spelling) as z, memoryview(z) as m:
            assert m.format == "l" and z.dtype == "int64"
    with mv.zeros(2, dtype="<d") as z, memoryview(z) as m:
        assert m.format == "d"



@pytest.mark.parametrize("dt", NUMPY_DTYPES, ids=str)
def test_numpy_extension_formats_through_testbuffer(dt):
    """NumPy's extensions of the grammar (long doubles, UCS-4, '^', named void
    fields, sub-arrays, records) served by _testbuffer re-exporting a NumPy array."""
    x = np.zeros(2, dt)
    x.view(np.uint8)[...] = np.arange(x.nbytes, dtype=np.uint8).reshape(x.view(np.uint8).shape)
    ref = tb.ndarray(x, getbuf=tb.PyBUF_FULL_RO)
    a = mv.from_buffer(ref)
    with memoryview(a) as m:
        assert m.format == ref.format == memoryview(x).format
        assert m.tobytes() == x.tobytes()
    with memoryview(a[::-1]) as m:
        assert m.format == ref.format
    a.release()
