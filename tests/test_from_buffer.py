"""Import of PEP 3118 exporters: what is accepted, what is refused, and why."""
import array
import ctypes

import numpy as np
import struct

import pytest

import memview as mv

tb = pytest.importorskip("_testbuffer", reason="CPython's _testbuffer test module is not built")


def test_span_only_is_retained():
    base = np.arange(24, dtype=np.float64).reshape(4, 6)
    arr = mv.from_buffer(base[::-1, ::2])
    # element 0 is base[3, 0]; the reachable span is base[0, 0] .. base[3, 4]
    assert arr.ptr == base[3:, :].ctypes.data
    assert arr.tolist() == base[::-1, ::2].tolist()


@pytest.mark.parametrize("fmt,dtype", [
    ("b", "int8"), ("B", "uint8"), ("h", "int16"), ("H", "uint16"), ("i", "int32"),
    ("I", "uint32"), ("l", "int64"), ("L", "uint64"), ("q", "int64"), ("Q", "uint64"),
    ("f", "float32"), ("d", "float64"), ("?", "bool"), ("e", "float16"),
    ("<d", "float64"), ("=i", "int32"), ("@q", "int64"),
])
def test_formats(fmt, dtype):
    nd = tb.ndarray([1, 0, 1] if fmt != "?" else [True, False, True], shape=[3], format=fmt,
                    flags=tb.ND_WRITABLE)
    a = mv.from_buffer(nd)
    assert a.dtype == dtype
    assert a.tolist() == nd.tolist()


@pytest.mark.parametrize("fmt", [">d", "!i", "2d", "s", "3s", "c", "P", "dd", "<l", ">Zd"])
def test_any_struct_format_is_imported(fmt):
    # Formats beyond one native number are read through their item descriptor
    # (see test_formats.py); the values are what struct unpacks.
    items = {"3s": [b"abc"], "s": [b"a"], "c": [b"a"], "2d": [(1.0, 2.0)],
             "dd": [(1.0, 2.0)], ">Zd": [1]}.get(fmt, [1])
    if fmt == ">Zd":
        pytest.skip("struct (hence _testbuffer) has no complex codes")
    nd = tb.ndarray(items, shape=[1], format=fmt)
    a = mv.from_buffer(nd)
    # one native number gets memview's own format for it ("<l" is "i"); others keep theirs,
    # but 'P', which NumPy does not read, is exported as the 'L' of its size
    assert a.itemsize == struct.calcsize(fmt) == struct.calcsize(a.format)
    assert a.format == fmt or fmt == "<l" or (fmt, a.format) == ("P", "L")
    assert bytes(memoryview(a)) == bytes(memoryview(nd))
    got = a.item(0)
    want = struct.unpack(fmt, bytes(memoryview(nd)))
    assert (list(got) if isinstance(got, (list, tuple)) else [got]) == list(want)


def test_unreadable_formats_refused():
    np = pytest.importorskip("numpy")
    with pytest.raises(TypeError, match="Python object references"):
        mv.from_buffer(np.zeros(2, object))  # 'O'
    with pytest.raises(TypeError, match="points outside the buffer"):
        mv.from_buffer((__import__("ctypes").c_char_p * 2)())  # "<z": char pointers
    with pytest.raises(TypeError, match="pointers"):
        mv.from_buffer(__import__("ctypes").pointer(__import__("ctypes").c_uint8()))  # "&<B"



def test_suboffsets_refused():
    nd = tb.ndarray(list(range(12)), shape=[3, 4], format="i", flags=tb.ND_PIL)
    with pytest.raises(ValueError, match="suboffsets"):
        mv.from_buffer(nd)


def test_stride_not_multiple_of_itemsize_refused():
    raw = np.zeros(16, dtype=np.uint8)
    odd = np.lib.stride_tricks.as_strided(raw.view(np.int32), shape=(3,), strides=(5,))
    with pytest.raises(ValueError, match="multiple of the item size"):
        mv.from_buffer(odd)


def test_misaligned_refused():
    raw = np.zeros(33, dtype=np.uint8)
    mis = raw[1:].view(np.float64)
    assert mis.ctypes.data % 8 != 0
    with pytest.raises(ValueError, match="aligned"):
        mv.from_buffer(mis)


def test_zero_strides_and_0d_and_empty():
    b = np.broadcast_to(np.arange(3.0), (4, 3))
    a = mv.from_buffer(b)
    assert a.strides == (0, 8) and a.readonly and a.tolist() == b.tolist()
    z = mv.from_buffer(np.array(4.25))
    assert z.shape == () and z.item() == 4.25
    e = mv.from_buffer(np.zeros((3, 0)))
    assert e.shape == (3, 0) and e.tolist() == [[], [], []]
    assert mv.from_buffer(b"").shape == (0,)


def test_not_an_exporter():
    for bad in (None, 3, "text", [1, 2], object()):
        with pytest.raises(TypeError):
            mv.from_buffer(bad)
    with pytest.raises(TypeError):
        mv.from_buffer(b"x", writable=1)


def test_ctypes_and_array_sources():
    c = (ctypes.c_double * 4)(1, 2, 3, 4)
    a = mv.from_buffer(c)
    a[0] = 10
    assert c[0] == 10.0 and a.shape == (4,)
    arr = array.array("h", [1, 2, 3])
    a = mv.from_buffer(arr)
    with pytest.raises(BufferError):
        arr.append(4)  # resizing refused while imported
    del a


def test_asarray():
    a = mv.zeros(3)
    assert mv.asarray(a) is a
    n = np.ones(3)
    assert mv.asarray(n).ptr == n.ctypes.data


# ---- copies only when asked for ----

def _np():
    return pytest.importorskip("numpy")


def test_unviewable_layouts_copy_only_when_asked():
    np = _np()
    n = np.zeros(4, dtype=[("a", "<i4"), ("b", "u1")])  # itemsize 5
    n["a"] = [1, 2, 3, 4]
    field = n["a"]  # stride 5, item size 4
    misaligned = np.frombuffer(bytearray(8 * 5 + 1), dtype="<f8", offset=1, count=5)
    misaligned.flags.writeable = True
    pil = tb.ndarray(list(range(12)), shape=[3, 4], format="i", flags=tb.ND_PIL)
    for src, want in [(field, [1, 2, 3, 4]), (misaligned, [0.0] * 5), (pil, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]])]:
        with pytest.raises(ValueError):
            mv.from_buffer(src)  # the default never copies
        before = memoryview(src).tobytes()
        for copy in (None, True):
            a = mv.from_buffer(src, copy=copy)
            assert a.tolist() == want and a.c_contiguous and not a.readonly
            a.fill(7)  # a copy: the source is untouched
            assert memoryview(src).tobytes() == before
    ro = mv.from_buffer(pil, copy=True, writable=False)
    assert ro.readonly and ro.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_copy_true_always_copies_and_none_views_when_it_can():
    np = _np()
    n = np.arange(6.0)
    viewed = mv.from_buffer(n, copy=None)
    copied = mv.from_buffer(n, copy=True)
    n[0] = 42
    assert viewed[0] == 42 and copied[0] == 0
    assert copied.base is None
    with pytest.raises(TypeError, match="copy"):
        mv.from_buffer(n, copy="yes")
    with pytest.raises(TypeError):
        mv.from_buffer(object(), copy=None)
