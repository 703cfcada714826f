"""Arrow PyCapsules both ways: the structures memview exports, read with ctypes as
the Arrow C data interface specifies them (no pyarrow needed), pyarrow as the
consumer and the producer where it is installed, release callbacks counted."""
import ctypes
import gc
import json

import numpy as np
import pytest

import memview as mv

GET = ctypes.pythonapi.PyCapsule_GetPointer
GET.restype = ctypes.c_void_p
GET.argtypes = [ctypes.py_object, ctypes.c_char_p]


class Schema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


Schema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
                   ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
                   ("children", ctypes.POINTER(ctypes.POINTER(Schema))), ("dictionary", ctypes.c_void_p),
                   ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]
ArrowArray._fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                       ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
                       ("buffers", ctypes.POINTER(ctypes.c_void_p)),
                       ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))), ("dictionary", ctypes.c_void_p),
                       ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]


class DeviceArray(ctypes.Structure):
    _fields_ = [("array", ArrowArray), ("device_id", ctypes.c_int64), ("device_type", ctypes.c_int32),
                ("sync_event", ctypes.c_void_p), ("reserved", ctypes.c_int64 * 3)]


def metadata(schema):
    """Arrow's binary key/value metadata as a dict."""
    if not schema.metadata:
        return {}
    # read exactly what the encoding says is there, never past the producer's buffer
    def at(pos, n):
        return ctypes.string_at(schema.metadata + pos, n)

    n, pos, out = int.from_bytes(at(0, 4), "little"), 4, {}
    for _ in range(n):
        k = int.from_bytes(at(pos, 4), "little")
        key = at(pos + 4, k).decode()
        pos += 4 + k
        v = int.from_bytes(at(pos, 4), "little")
        out[key] = at(pos + 4, v).decode()
        pos += 4 + v
    return out


FORMATS = {"int8": b"c", "uint8": b"C", "int16": b"s", "uint16": b"S", "int32": b"i", "uint32": b"I",
           "int64": b"l", "uint64": b"L", "float16": b"e", "float32": b"f", "float64": b"g"}


@pytest.mark.parametrize("dtype", list(FORMATS))
def test_primitive_export_structures(dtype):
    a = mv.arange(5, dtype=dtype)
    sc, ac = a.__arrow_c_array__()
    s = Schema.from_address(GET(sc, b"arrow_schema"))
    arr = ArrowArray.from_address(GET(ac, b"arrow_array"))
    assert s.format == FORMATS[dtype] and s.n_children == 0 and s.release
    assert (arr.length, arr.null_count, arr.offset, arr.n_buffers, arr.n_children) == (5, 0, 0, 2, 0)
    assert arr.buffers[0] is None and arr.buffers[1] == a.ptr  # no validity bitmap; the data in place
    assert a._exports == 1
    del s, arr, sc, ac
    gc.collect()
    assert a._exports == 0  # the capsule destructor called release, once
    sc = a.__arrow_c_schema__()
    assert Schema.from_address(GET(sc, b"arrow_schema")).format == FORMATS[dtype]


def test_tensor_export_structures():
    a = mv.arange(24, dtype="float32").reshape(2, 3, 4)
    sc, ac = a.__arrow_c_array__()
    s = Schema.from_address(GET(sc, b"arrow_schema"))
    arr = ArrowArray.from_address(GET(ac, b"arrow_array"))
    assert s.format == b"+w:12" and s.n_children == 1 and s.children[0].contents.format == b"f"
    md = metadata(s)
    assert md["ARROW:extension:name"] == "arrow.fixed_shape_tensor"
    assert json.loads(md["ARROW:extension:metadata"]) == {"shape": [3, 4]}
    assert (arr.length, arr.n_buffers, arr.n_children) == (2, 1, 1)
    child = arr.children[0].contents
    assert (child.length, child.n_buffers) == (24, 2) and child.buffers[1] == a.ptr
    assert a._exports == 2  # the list and its child each hold the array
    del s, arr, child, sc, ac
    gc.collect()
    assert a._exports == 0


def test_device_array_export_on_the_cpu():
    a = mv.arange(3.0)
    sc, dc = a.__arrow_c_device_array__()
    d = DeviceArray.from_address(GET(dc, b"arrow_device_array"))
    assert (d.device_type, d.device_id, d.sync_event) == (1, -1, None) and d.array.buffers[1] == a.ptr
    with pytest.raises(NotImplementedError, match="future"):
        a.__arrow_c_device_array__(future=1)
    a.__arrow_c_device_array__(None, future=None)  # unknown keywords that are None are fine
    del d, sc, dc
    gc.collect()
    assert a._exports == 0


@pytest.mark.parametrize("make, exc, match", [
    (lambda: mv.zeros(3, "bool"), TypeError, "bit-packed"),
    (lambda: mv.zeros(3, "complex128"), TypeError, "complex"),
    (lambda: mv.zeros(3, ">f8"), TypeError, "byte-swapped"),
    (lambda: mv.zeros(3, "T{i:a:}"), TypeError, "records"),
    (lambda: mv.zeros(()), TypeError, "0-d"),
    (lambda: mv.zeros(6)[::2], BufferError, "contiguous"),
    (lambda: mv.zeros((3, 4)).T, BufferError, "contiguous"),
])
def test_export_refusals(make, exc, match):
    a = make()
    with pytest.raises(exc, match=match):
        a.__arrow_c_array__()
    assert a._exports == 0


def test_bad_requested_schema_and_released():
    a = mv.zeros(3)
    with pytest.raises(TypeError, match="requested_schema"):
        a.__arrow_c_array__(42)
    a.__arrow_c_array__(a.__arrow_c_schema__())  # a schema capsule is accepted (memview's type is kept)
    a.release()
    with pytest.raises(ValueError, match="released"):
        a.__arrow_c_schema__()


# ---- with pyarrow

try:
    import pyarrow as pa
except ImportError:
    pa = None
needs_pyarrow = pytest.mark.skipif(pa is None, reason="pyarrow is not installed (requirements-interop.txt)")


@needs_pyarrow
@pytest.mark.parametrize("dtype", list(FORMATS))
def test_pyarrow_consumes_in_place(dtype):
    a = mv.arange(6, dtype=dtype)
    p = pa.array(a)
    assert p.type == pa.from_numpy_dtype(np.dtype(dtype)) and p.null_count == 0
    assert p.buffers()[1].address == a.ptr  # no copy
    assert p.to_pylist() == a.tolist()
    np.asarray(a)[0] = 5
    assert p[0].as_py() == 5
    del p
    gc.collect()
    assert a._exports == 0


@needs_pyarrow
def test_pyarrow_tensor_and_chunked():
    a = mv.arange(12, dtype="int64").reshape(3, 2, 2)
    t = pa.array(a)
    assert isinstance(t.type, pa.FixedShapeTensorType) and t.type.shape == [2, 2]
    assert t.to_numpy_ndarray().tolist() == a.tolist()
    assert t.storage.values.buffers()[1].address == a.ptr
    c = pa.chunked_array([mv.arange(3.0), mv.arange(2.0)])
    assert c.to_pylist() == [0.0, 1.0, 2.0, 0.0, 1.0]
    tab = pa.table({"x": pa.array(mv.arange(4, dtype="int32"))})
    assert tab.column("x").to_pylist() == [0, 1, 2, 3]


@needs_pyarrow
def test_from_arrow_primitive_and_sliced():
    p = pa.array(np.arange(10, dtype="int16"))
    a = mv.from_arrow(p)
    assert a.readonly and a.dtype == "int16" and a.ptr == p.buffers()[1].address and a.base is p
    s = mv.from_arrow(p[3:7])
    assert s.tolist() == [3, 4, 5, 6] and s.ptr == p.buffers()[1].address + 6  # the offset honoured
    with pytest.raises(ValueError):
        s[0] = 1


@needs_pyarrow
def test_from_arrow_release_runs_once():
    before = pa.total_allocated_bytes()
    p = pa.array(np.arange(1000, dtype="float64"))
    a = mv.from_arrow(p)[::10]
    del p
    gc.collect()
    assert a.tolist()[:3] == [0.0, 10.0, 20.0]  # pyarrow's memory still alive
    assert pa.total_allocated_bytes() > before
    del a
    gc.collect()
    assert pa.total_allocated_bytes() == before  # released, once


@needs_pyarrow
def test_from_arrow_fixed_size_list_and_tensor():
    lst = pa.FixedSizeListArray.from_arrays(pa.array(np.arange(12, dtype="float32")), 4)
    a = mv.from_arrow(lst)
    assert a.shape == (3, 4) and a.tolist() == np.arange(12).reshape(3, 4).tolist()
    t = pa.array(mv.arange(24, dtype="uint8").reshape(2, 3, 4))
    b = mv.from_arrow(t)
    assert b.shape == (2, 3, 4) and b.tolist() == np.arange(24).reshape(2, 3, 4).tolist()
    assert mv.from_arrow(t[1:]).tolist() == np.arange(12, 24).reshape(1, 3, 4).tolist()


@needs_pyarrow
@pytest.mark.parametrize("make, exc, match", [
    (lambda: pa.array([1.0, None, 3.0]), ValueError, "null"),
    (lambda: pa.array([True, False]), TypeError, "bit-packed"),
    (lambda: pa.array(["a", "b"]), TypeError, "not supported"),
    (lambda: pa.array([1, 2]).dictionary_encode(), TypeError, "dictionary"),
])
def test_from_arrow_refusals(make, exc, match):
    p = make()
    before = pa.total_allocated_bytes()
    with pytest.raises(exc, match=match):
        mv.from_arrow(p)
    gc.collect()
    assert pa.total_allocated_bytes() == before


@needs_pyarrow
def test_from_arrow_bad_input_and_asarray():
    with pytest.raises(TypeError, match="__arrow_c_array__"):
        mv.from_arrow(object())
    p = pa.array(np.arange(3, dtype="int32"))
    assert mv.asarray(p).ptr == p.buffers()[1].address  # pyarrow arrays have no buffer protocol
