"""NumPy's own PEP 3118 cases, routed through memview.

The cases are those of NumPy's test classes TestNewBufferProtocol and TestPEP3118Dtype
(numpy/_core/tests/test_multiarray.py), rewritten here so that every buffer NumPy would
have read from its own export goes through memview first: where NumPy's tests take
memoryview(x), these take memoryview(mv.from_buffer(x)), and where they parse a PEP 3118
format with NumPy's internal parser, these parse it with mv.dtype and ask NumPy for the
equal dtype (np.dtype(mv.dtype(spec))). A re-export must be indistinguishable from
NumPy's: same format string, shape, strides, itemsize, values and dtype.

Left out, each with its reason: the user-dtype (rational) cases, which test NumPy's
export of a dtype that has no PEP 3118 format at all, and the C-subclass buffer-info
corruption check, which tests NumPy's internal bookkeeping.
"""
import ctypes
import io
import sys

import numpy as np
import numpy._core._multiarray_tests as _multiarray_tests
import pytest
from numpy.lib import stride_tricks

import memview as mv


def reexport(obj):
    """memoryview of memview's view of obj's buffer."""
    return memoryview(mv.from_buffer(obj))


# ---------------------------------------------------------------- TestPEP3118Dtype


def check_spec(spec, wanted):
    got = np.dtype(mv.dtype(spec))
    want = np.dtype(wanted)
    assert got == want, f"spec {spec!r}: {got!r} != {want!r}"
    assert mv.dtype(spec) == want
    assert mv.dtype(spec).itemsize == want.itemsize


INT_ALIGN = np.dtype("i").alignment
INT_SIZE = np.dtype("i").itemsize


def aligned(n):
    return INT_ALIGN * (1 + (n - 1) // INT_ALIGN)


@pytest.mark.parametrize("j", range(8))
def test_native_padding(j):
    s = "bi" if j == 0 else f"b{j}xi"
    check_spec("@" + s, {"f0": ("i1", 0), "f1": ("i", INT_ALIGN * (1 + j // INT_ALIGN))})
    check_spec("=" + s, {"f0": ("i1", 0), "f1": ("i", 1 + j)})


def test_native_padding_of_structs_and_subarrays():
    check_spec("x3T{xi}", {"f0": (({"f0": ("i", 4)}, (3,)), 4)})
    check_spec("^x3T{xi}", {"f0": (({"f0": ("i", 1)}, (3,)), 1)})


@pytest.mark.parametrize("pad", [1, 2, 3, 4, 7])
def test_trailing_padding(pad):
    base = {"formats": ["i"], "names": ["f0"]}
    xs = "x" * pad if pad < 5 else f"{pad}x"
    check_spec("i" + xs, dict(itemsize=aligned(INT_SIZE + pad), **base))
    check_spec("^i" + xs, dict(itemsize=INT_SIZE + pad, **base))


def test_native_padding_nested():
    dt = np.dtype([("a", "b"), ("b", "i"), ("sub", np.dtype("b,i")), ("c", "i")], align=True)
    check_spec("T{b:a:xxxi:b:T{b:f0:=i:f1:}:sub:xxxi:c:}", dt)
    dt = np.dtype([("a", "b"), ("b", "i"), ("c", "b"), ("d", "b"), ("e", "b"),
                   ("sub", np.dtype("b,i", align=True))])
    check_spec("T{b:a:=i:b:b:c:b:d:b:e:T{b:f0:xxxi:f1:}:sub:}", dt)


def test_padding_with_array_inside_struct():
    dt = np.dtype([("a", "b"), ("b", "i"), ("c", "b", (3,)), ("d", "i")], align=True)
    check_spec("T{b:a:xxxi:b:3b:c:xi:d:}", dt)


def test_byteorder_inside_struct():
    # after @T{=i} the mode is '=', not '@': no native alignment for the next field
    check_spec("@T{^i}xi", {"f0": ({"f0": ("i", 0)}, 0), "f1": ("i", 5)})


def test_intra_padding():
    check_spec("(3)T{ix}", ({"names": ["f0"], "formats": ["i"], "offsets": [0],
                             "itemsize": aligned(INT_SIZE + 1)}, (3,)))


def test_char_vs_string():
    check_spec("c", np.dtype("c"))
    check_spec("4c4s", np.dtype([("f0", "S1", (4,)), ("f1", "S4")]))


def test_field_order():
    check_spec("(0)I:a:f:b:", [("a", "I", (0,)), ("b", "f")])
    check_spec("(0)I:b:f:a:", [("b", "I", (0,)), ("a", "f")])


def test_unnamed_fields():
    check_spec("ii", [("f0", "i"), ("f1", "i")])
    check_spec("ii:f0:", [("f1", "i"), ("f0", "i")])
    check_spec("i", "i")
    check_spec("i:f0:", [("f0", "i")])


# ---------------------------------------------------------------- TestNewBufferProtocol


def check_roundtrip(obj):
    obj = np.asarray(obj)
    x = reexport(obj)
    y = np.asarray(x)
    y2 = np.array(x)
    assert not y.flags.owndata and y2.flags.owndata
    for z in (y, y2):
        assert z.dtype == obj.dtype
        assert z.shape == obj.shape
        np.testing.assert_array_equal(obj, z)
    assert x.format == memoryview(obj).format
    # and back: the data pointer is NumPy's own
    assert y.__array_interface__["data"][0] == obj.__array_interface__["data"][0]


EVERY_KIND = [("a", "b"), ("b", "h"), ("c", "i"), ("d", "l"), ("dx", "q"), ("e", "B"),
              ("f", "H"), ("g", "I"), ("h", "L"), ("hx", "Q"), ("i", np.single),
              ("j", np.double), ("k", np.longdouble), ("ix", np.csingle), ("jx", np.cdouble),
              ("kx", np.clongdouble), ("l", "S4"), ("m", "U4"), ("n", "V3"), ("o", "?"),
              ("p", np.half)]


@pytest.mark.parametrize("x", [
    np.array([1, 2, 3, 4, 5], dtype="i4"),
    np.array([[1, 2], [3, 4]], dtype=np.float64),
    np.zeros((3, 3, 3), dtype=np.float32)[:, 0, :],
    np.array([(1,) * 16 + (b"aaaa", "bbbb", b"xxx", True, 1.0)], dtype=EVERY_KIND),
    np.array(([[1, 2], [3, 4]],), dtype=[("a", (int, (2, 2)))]),
    np.array([1, 2, 3], dtype=">i2"),
    np.array([1, 2, 3], dtype="<i2"),
    np.array([1, 2, 3], dtype=">i4"),
    np.array([1, 2, 3], dtype="<i4"),
    np.array([1, 2, 3], dtype=">q"),
    np.array([1, 2, 3], dtype="<g"),
], ids=lambda x: str(x.dtype)[:40])
def test_roundtrip(x):
    check_roundtrip(x)


def test_roundtrip_native_only_type_in_foreign_order():
    # Native-only types pass the buffer interface only in native byte order: NumPy
    # refuses to export '>g' on a little-endian machine, so there is nothing to import.
    assert sys.byteorder == "little"
    with pytest.raises(ValueError):
        check_roundtrip(np.array([1, 2, 3], dtype=">g"))


HALF = [1.0, -2.0, 6.5504e4, 2.0 ** -14, 2.0 ** -24, 0.0, -0.0, float("inf"), float("-inf"),
        0.333251953125]


@pytest.mark.parametrize("order", ["<", ">"])
def test_roundtrip_half(order):
    check_roundtrip(np.array(HALF, dtype=order + "e"))


SINGLE_TYPES = sorted({np.dtype(t).char for t in np._core.sctypeDict.values()} - set("MmV"))


@pytest.mark.parametrize("char", SINGLE_TYPES)
def test_roundtrip_single_types(char):
    dtype = np.dtype(char)
    if dtype.char == "O":
        pytest.skip("object arrays have no PEP 3118 buffer (NumPy exports 'O'; memview refuses it)")
    check_roundtrip(np.zeros(4, dtype=dtype))
    if dtype.char not in "qQgG":
        check_roundtrip(np.zeros(4, dtype=dtype.newbyteorder("<")))
        check_roundtrip(np.zeros(4, dtype=dtype.newbyteorder(">")))


def test_roundtrip_scalar():
    check_roundtrip(0)


def test_invalid_buffer_format():
    # datetime64 has no buffer format: NumPy refuses to export, memview gets nothing to import
    a = np.empty(3, np.dtype([("a", "uint16"), ("b", "M8[s]")]))
    with pytest.raises((ValueError, BufferError)):
        mv.from_buffer(a)
    with pytest.raises((ValueError, BufferError)):
        mv.from_buffer(np.array(3, "M8[D]"))


def check_export(x, fmt, shape, strides, itemsize):
    y = reexport(x)
    assert y.format == fmt
    assert y.shape == shape
    assert y.ndim == len(shape)
    assert y.strides == strides
    assert y.suboffsets == ()
    assert y.itemsize == itemsize


def test_export_simple_1d():
    check_export(np.array([1, 2, 3, 4, 5], dtype="i"), "i", (5,), (4,), 4)


def test_export_simple_nd():
    check_export(np.array([[1, 2], [3, 4]], dtype=np.float64), "d", (2, 2), (16, 8), 8)


def test_export_discontiguous():
    check_export(np.zeros((3, 3, 3), dtype=np.float32)[:, 0, :], "f", (3, 3), (36, 4), 4)


def test_export_record():
    x = np.array([(1,) * 16 + (b"aaaa", "bbbb", b"   ", True, 1.0)], dtype=EVERY_KIND)
    size = sum(np.dtype(t).itemsize for _, t in EVERY_KIND)
    assert np.dtype("l").itemsize == 8  # NumPy writes 'l' fields as 'q' where long is 8 bytes
    fmt = ("T{b:a:=h:b:i:c:q:d:q:dx:B:e:@H:f:=I:g:Q:h:Q:hx:f:i:d:j:^g:k:=Zf:ix:Zd:jx:^Zg:kx:"
           "4s:l:=4w:m:3x:n:?:o:@e:p:}")
    assert memoryview(x).format == fmt
    check_export(x, fmt, (1,), (size,), size)


def test_export_subarray():
    x = np.array(([[1, 2], [3, 4]],), dtype=[("a", ("i", (2, 2)))])
    check_export(x, "T{(2,2)i:a:}", (), (), 16)


def test_export_endian():
    check_export(np.array([1, 2, 3], dtype=">i"), ">i", (3,), (4,), 4)
    check_export(np.array([1, 2, 3], dtype="<i"), "i", (3,), (4,), 4)


def test_export_flags():
    # a SIMPLE request of a non-contiguous array fails (as a BufferError in memview's
    # re-export, where NumPy's own export raises ValueError)
    with pytest.raises((ValueError, BufferError)):
        _multiarray_tests.get_buffer_info(mv.from_buffer(np.arange(5)[::2]), ("SIMPLE",))


@pytest.mark.parametrize("j", range(8))
def test_padding(j):
    check_roundtrip(np.array([(1,), (2,)], dtype={"f0": (int, j)}))


def test_reference_leak():
    before = sys.getrefcount(np._core._internal)
    a = np.zeros(4)
    b = reexport(a)
    c = np.asarray(b)
    assert sys.getrefcount(np._core._internal) == before
    del c
    b.release()


@pytest.mark.parametrize("dt", [
    np.dtype([("a", "b"), ("b", "i"), ("sub", np.dtype("b,i")), ("c", "i")], align=True),
    np.dtype([("a", "b"), ("b", "i"), ("c", "b", (3,)), ("d", "i")], align=True),
    np.dtype([("a", "b"), ("b", "i"), ("c", "b"), ("d", "b"), ("e", "b"),
              ("sub", np.dtype("b,i", align=True))]),
], ids=["nested", "subarray", "nested aligned"])
def test_padded_struct_array(dt):
    check_roundtrip(np.arange(dt.itemsize, dtype=np.int8).view(dt))


def test_relaxed_strides():
    c = stride_tricks.as_strided(np.ones((1, 10, 10), dtype="i8"), strides=(-1, 80, 8))
    assert reexport(c).strides == (800, 80, 8)
    fd = io.BytesIO()
    fd.write(reexport(c))  # C-contiguous data goes to a file object
    assert fd.getvalue() == c.tobytes()
    assert reexport(c.T).strides == (8, 80, 800)
    arr = np.ones((1, 10))
    shape, strides = _multiarray_tests.get_buffer_info(mv.from_buffer(arr), ["F_CONTIGUOUS"])
    assert strides[0] == 8
    arr = np.ones((10, 1), order="F")
    shape, strides = _multiarray_tests.get_buffer_info(mv.from_buffer(arr), ["C_CONTIGUOUS"])
    assert strides[-1] == 8


def test_out_of_order_fields():
    # overlapping fields cannot be described in PEP 3118: NumPy refuses to export them
    dt = np.dtype({"formats": ["<i4", "<i4"], "names": ["one", "two"], "offsets": [4, 0],
                   "itemsize": 8})
    with pytest.raises(ValueError):
        mv.from_buffer(np.empty(1, dt))


def test_max_dims():
    check_roundtrip(np.ones((1,) * 32))


def test_error_pointer_type():
    # '&' (pointers) stays refused, with a message that says why
    m = memoryview(ctypes.pointer(ctypes.c_uint8()))
    assert "&" in m.format
    with pytest.raises(TypeError, match="pointer"):
        mv.from_buffer(m)


def test_error_message_unsupported():
    # 'u' (UCS-2 wchar) has no NumPy type; memview refuses it too
    with pytest.raises(TypeError):
        mv.from_buffer((ctypes.c_wchar * 4)())


@pytest.mark.parametrize("ctype", [ctypes.c_int, ctypes.c_long, ctypes.c_longlong])
def test_ctypes_integer_via_memoryview(ctype):
    value = ctype(42)
    a = np.asarray(reexport(value))
    assert a == 42 and a.dtype.itemsize == ctypes.sizeof(ctype)


def test_ctypes_struct_via_memoryview():
    class Foo(ctypes.Structure):
        _fields_ = [("a", ctypes.c_uint8), ("b", ctypes.c_uint32)]

    f = Foo(a=1, b=2)
    arr = np.asarray(reexport(f))
    assert arr["a"] == 1 and arr["b"] == 2
    f.a = 3
    assert arr["a"] == 3


def test_no_suboffsets():
    _testbuffer = pytest.importorskip("_testbuffer")
    for shape in [(2, 3), (2, 3, 4)]:
        data = list(range(int(np.prod(shape))))
        buffer = _testbuffer.ndarray(data, shape, format="i", flags=_testbuffer.ND_PIL)
        with pytest.raises(BufferError, match="suboffsets"):
            mv.from_buffer(buffer)
