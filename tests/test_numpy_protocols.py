"""NumPy's side of the exchange: __array_interface__ (v3, records described from
the Go item descriptor), __array__ with NumPy 2's copy rules, ufuncs writing into
memview arrays, weak references, and device arrays that refuse to be read by the
host instead of being iterated."""
import gc
import weakref

import numpy as np
import pytest

import memview as mv
from _dlpack_ctypes import CUDA, versioned

NUMBERS = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64",
           "complex128"]


class Interface:
    """An object with only the array interface, as PIL or any third party sees it."""

    def __init__(self, d, keep):
        self.__array_interface__ = d
        self.keep = keep


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("key", [(), (slice(None, None, -1),), (slice(1, None, 2), slice(None, None, -3)),
                                 (Ellipsis, 2), (slice(None), None)])
def test_array_interface_matches_the_buffer(dtype, key):
    a = mv.from_buffer((np.arange(30).reshape(5, 6) % 3).astype(dtype)).copy()[key]
    d = a.__array_interface__
    assert d["version"] == 3 and d["shape"] == a.shape and d["typestr"] == a.typestr
    assert d["descr"] == [("", a.typestr)] and d["data"] == (a.ptr, False)
    assert d["strides"] is None if a.c_contiguous else d["strides"] == a.strides
    n = np.asarray(Interface(d, a))
    assert n.ctypes.data == a.ptr and n.dtype == np.dtype(dtype)
    assert n.strides == a.strides or (a.c_contiguous and n.flags.c_contiguous)
    assert n.tolist() == a.tolist()


@pytest.mark.parametrize("fmt", ["T{<i:a:>d:b:}", "T{b:a:i:c:}", "T{<i:a:(2)d:b:T{h:x:}:c:}",
                                 "T{3s:x:c:y:?:z:}", "T{i:a:}", "T{<g:a:<Zg:b:<i:c:}"])
def test_array_interface_records_like_numpy(fmt):
    a = mv.zeros(4, dtype=fmt)
    a[1] = a[1]  # a record written through memview
    d = a.__array_interface__
    want = np.asarray(a).dtype  # NumPy's reading of the PEP 3118 format
    assert d["typestr"] == f"|V{a.itemsize}" and d["descr"] == want.descr
    n = np.asarray(Interface(d, a))
    assert n.ctypes.data == a.ptr and n.dtype.itemsize == want.itemsize
    # NumPy reads a padding entry ('', '|Vn') back as a void field of its own (as
    # it does with its own arrays' descr); the named fields are the same
    assert {k: v for k, v in n.dtype.fields.items() if k in want.names} == dict(want.fields)


def test_array_interface_unnamed_fields():
    """NumPy names unnamed fields f0, f1, ... but also names padding by position
    when it reads a descr: memview names fields by position so the two agree."""
    a = mv.zeros(3, dtype="bi")
    d = a.__array_interface__
    assert d["descr"] == [("f0", "|i1"), ("", "|V3"), ("f2", "<i4")]
    n = np.asarray(Interface(d, a))
    assert n.dtype.itemsize == 8 and n.dtype.fields["f2"][1] == 4
    n["f2"] = [1, 2, 3]
    assert [r[1] for r in a.tolist()] == [1, 2, 3]


def test_array_interface_sub_arrays_and_strings():
    s = mv.zeros((4, 2), "(2,3)f")[::2]
    d = s.__array_interface__
    assert d["shape"] == (2, 2, 2, 3) and d["typestr"] == "<f4" and d["strides"] == (96, 24, 12, 4)
    assert np.asarray(Interface(d, s)).shape == np.asarray(s).shape
    b = mv.zeros(3, "5s")
    assert b.__array_interface__["descr"] == [("", "|S5")]
    be = mv.zeros(3, ">f8")
    assert np.asarray(Interface(be.__array_interface__, be)).dtype == np.dtype(">f8")


def test_array_interface_read_only_and_released():
    r = mv.from_buffer(bytes(16), writable=False)
    assert r.__array_interface__["data"][1] is True
    assert not np.asarray(Interface(r.__array_interface__, r)).flags.writeable
    a = mv.zeros(2)
    a.release()
    with pytest.raises(ValueError, match="released"):
        a.__array_interface__


def test_dunder_array_copy_rules():
    a = mv.arange(6, dtype="int32").reshape(2, 3)
    n = a.__array__()
    assert n.ctypes.data == a.ptr and n.dtype == np.int32
    assert a.__array__(copy=False).ctypes.data == a.ptr
    c = a.__array__(copy=True)
    assert c.ctypes.data != a.ptr and c.tolist() == a.tolist()
    f = a.__array__(dtype=np.float64)
    assert f.dtype == np.float64 and f.tolist() == a.tolist()
    with pytest.raises(ValueError, match="copy=False"):
        a.__array__(dtype=np.float64, copy=False)
    assert np.array(a, copy=False).ctypes.data == a.ptr
    assert np.array(a).ctypes.data != a.ptr  # np.array copies by default
    assert np.asarray(a, dtype="float32").dtype == np.float32


def test_ufuncs_write_into_memview_arrays():
    a = mv.arange(6, dtype="float64").reshape(2, 3)
    r = np.add(a, 1, out=a)
    assert r is a and a.tolist() == [[1, 2, 3], [4, 5, 6]]
    np.multiply(a[:, ::2], 10, out=a[:, ::2])
    assert a.tolist() == [[10, 2, 30], [40, 5, 60]]
    assert isinstance(np.sqrt(a), np.ndarray)  # results are NumPy's
    q, m = mv.zeros(3), mv.zeros(3)
    res = np.divmod(np.array([7.0, 8.0, 9.0]), 4, out=(q, m))
    assert res == (q, m) and q.tolist() == [1, 2, 2] and m.tolist() == [3, 0, 1]
    q2, rest = np.divmod(np.array([7.0]), 4, out=(mv.zeros(1), None))
    assert isinstance(q2, mv.Array) and isinstance(rest, np.ndarray)
    np.add.at(a, (0, 1), 100)
    assert a[0, 1] == 102
    assert np.add.reduce(a, axis=0).tolist() == [50, 107, 90]
    ro = mv.from_buffer(np.zeros(3), writable=False)
    with pytest.raises(ValueError, match="read-only"):
        np.add(np.zeros(3), 1, out=ro)
    n = np.arange(3.0)
    assert (n + mv.full(3, 1.0)).tolist() == [1, 2, 3]


def test_weak_references():
    a = mv.zeros(3)
    w = weakref.ref(a)
    assert w() is a
    d = weakref.WeakValueDictionary({"a": a})
    del a
    gc.collect()
    assert w() is None and "a" not in d


class FakeDevice:
    """A CUDA array interface over an address nobody reads: memview wraps it
    without touching it, so device-array behaviour is testable without a GPU."""

    def __init__(self, stream=None):
        self.__cuda_array_interface__ = {"shape": (4, 3), "typestr": "<f4", "data": (0x7F0000000000, False),
                                         "version": 3, "stream": stream}


def test_device_arrays_refuse_host_readers():
    d = mv.from_cuda_array_interface(FakeDevice())
    assert not hasattr(d, "__array_interface__")
    with pytest.raises(TypeError, match=r"to\('cpu'\)"):
        np.asarray(d)  # never iterated element by element
    with pytest.raises(TypeError, match="device memory"):
        d.__array__()
    with pytest.raises(TypeError, match="device memory"):
        np.add(d, 1)
    with pytest.raises(BufferError, match="__arrow_c_device_array__"):
        d.__arrow_c_array__()


def test_device_dlpack_capsule():
    d = mv.from_cuda_array_interface(FakeDevice())[::2]
    assert d.__dlpack_device__() == (CUDA, 0)
    cap = d.__dlpack__(max_version=(1, 0))
    t = versioned(cap)
    assert t.dl_tensor.data == d.ptr and t.dl_tensor.device.device_type == CUDA
    del t, cap
    with pytest.raises(ValueError, match="stream 0"):
        d.__dlpack__(stream=0)
    with pytest.raises(ValueError, match="stream -2"):
        d.__dlpack__(stream=-2)
    with pytest.raises(BufferError, match="copy=False"):
        d.__dlpack__(max_version=(1, 0), dl_device=(1, 0), copy=False)
    with pytest.raises((BufferError, RuntimeError), match="device"):
        np.from_dlpack(d)  # NumPy reads host memory only


def test_device_dlpack_stream_rules_without_a_driver():
    d = mv.from_cuda_array_interface(FakeDevice(stream=7), sync=False)
    # the consumer's stream is the one the work is on, or it orders nothing: no event needed
    for stream in (7, -1):
        cap = d.__dlpack__(stream=stream, max_version=(1, 0))
        assert versioned(cap).dl_tensor.data == d.ptr
    if not mv.cuda.is_available():
        with pytest.raises(mv.cuda.CUDAError):
            d.__dlpack__(max_version=(1, 0))  # the legacy stream must wait for stream 7: needs a driver
