"""DLPack 1.3 both ways: __dlpack__/__dlpack_device__ against the Python
specification (capsule names and structures read back with ctypes), NumPy as the
consumer and the producer, hand-made producers (byte_offset, read-only, legacy,
refused dtypes, deleters counted), and the C exchange table."""
import ctypes
import gc

import numpy as np
import pytest

import memview as mv
from _dlpack_ctypes import (BFLOAT, BOOL, COMPLEX, CPU, CUDA, CUDA_HOST, FLOAT, INT, IS_COPIED, READ_ONLY, UINT,
                            CAPSULE_GET, CAPSULE_NAME, ExchangeAPI, Producer, SET_ERROR, Tensor, Versioned,
                            legacy, shape_strides, versioned)

DTYPES = {"bool": (BOOL, 8), "int8": (INT, 8), "int16": (INT, 16), "int32": (INT, 32), "int64": (INT, 64),
          "uint8": (UINT, 8), "uint16": (UINT, 16), "uint32": (UINT, 32), "uint64": (UINT, 64),
          "float16": (FLOAT, 16), "float32": (FLOAT, 32), "float64": (FLOAT, 64),
          "complex64": (COMPLEX, 64), "complex128": (COMPLEX, 128)}
LAYOUTS = {
    "C": lambda a: a, "F": lambda a: a.T.copy("C").T, "step": lambda a: a[::2, 1::3],
    "negative": lambda a: a[::-1, ::-2], "transposed": lambda a: a.T, "row": lambda a: a[3],
    "0-d": lambda a: a[2, 5, ...], "empty": lambda a: a[3:3], "newaxis": lambda a: a[:, None, 1],
}


def base(dtype="float64"):
    return mv.from_buffer((np.arange(8 * 12).reshape(8, 12) % 7).astype(dtype)).copy()


# ---- export: the capsule as the specification describes it


@pytest.mark.parametrize("dtype", list(DTYPES))
def test_versioned_capsule_fields(dtype):
    a = base(dtype)[1:, ::-2]
    cap = a.__dlpack__(max_version=(1, 3))
    assert CAPSULE_NAME(cap) == b"dltensor_versioned"
    t = versioned(cap)
    assert (t.version.major, t.version.minor) == (1, 3) and t.flags == 0
    dl = t.dl_tensor
    assert (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes) == (*DTYPES[dtype], 1)
    assert (dl.device.device_type, dl.device.device_id) == (CPU, 0)
    assert dl.data == a.ptr and dl.byte_offset == 0  # data is element 0
    assert shape_strides(dl) == (a.shape, tuple(s // a.itemsize for s in a.strides))  # element strides
    assert a._exports == 1  # the tensor holds the array: release() is refused meanwhile
    with pytest.raises(BufferError):
        a.release()
    del cap, t, dl
    gc.collect()
    assert a._exports == 0  # the capsule's destructor ran the deleter, once


def test_legacy_capsule_without_max_version():
    a = base()[::2]
    for kwargs in ({}, {"max_version": None}, {"max_version": (0, 8)}):
        cap = a.__dlpack__(**kwargs)
        assert CAPSULE_NAME(cap) == b"dltensor"
        dl = legacy(cap).dl_tensor
        assert dl.data == a.ptr and shape_strides(dl) == (a.shape, (24, 1))
    del cap, dl
    gc.collect()
    assert a._exports == 0


def test_version_follows_an_older_consumer():
    a = mv.zeros(3)
    for max_version, want in (((1, 1), (1, 1)), ((1, 99), (1, 3)), ((2, 0), (1, 3))):
        cap = a.__dlpack__(max_version=max_version)  # kept alive while its struct is read
        v = versioned(cap).version
        assert (v.major, v.minor) == want


def test_zero_d_and_empty():
    a = mv.full((), 3.5)
    cap = a.__dlpack__(max_version=(1, 0))
    dl = versioned(cap).dl_tensor
    assert dl.ndim == 0 and dl.data == a.ptr
    e = mv.zeros((0, 3))
    cap = e.__dlpack__(max_version=(1, 0))
    dl = versioned(cap).dl_tensor
    assert dl.data == e.ptr and shape_strides(dl) == ((0, 3), (3, 1))
    assert np.from_dlpack(e).shape == (0, 3) and np.from_dlpack(a)[()] == 3.5


def test_read_only_flag_and_legacy_refusal():
    r = mv.from_buffer(np.arange(4.0)[::-1].copy(), writable=False)
    cap = r.__dlpack__(max_version=(1, 0))
    assert versioned(cap).flags == READ_ONLY
    n = np.from_dlpack(r)
    assert not n.flags.writeable and n.tolist() == [3.0, 2.0, 1.0, 0.0]
    with pytest.raises(BufferError, match="read-only"):
        r.__dlpack__()  # the legacy form cannot say read-only
    c = r.__dlpack__(copy=True)  # a copy is writable: the legacy form is fine
    assert legacy(c).dl_tensor.data != r.ptr


def test_copy_true_copies_and_flags_it():
    a = base()[::2, ::3]
    cap = a.__dlpack__(max_version=(1, 0), copy=True)
    t = versioned(cap)
    assert t.flags == IS_COPIED and t.dl_tensor.data != a.ptr
    n = np.from_dlpack(a, copy=True)
    n[0, 0] = 99
    assert a[0, 0] != 99 and n.tolist()[1:] == np.asarray(a).tolist()[1:]
    m = np.from_dlpack(a, copy=False)
    assert m.ctypes.data == a.ptr


def test_dl_device_rules():
    a = base()
    assert a.__dlpack_device__() == (CPU, 0)
    cap = a.__dlpack__(max_version=(1, 0), dl_device=(CPU, 0), copy=False)  # its own device: no copy
    assert versioned(cap).dl_tensor.data == a.ptr
    with pytest.raises(BufferError, match="copy=False"):
        a.__dlpack__(max_version=(1, 0), dl_device=(CUDA, 0), copy=False)
    with pytest.raises(BufferError, match="device type 4"):
        a.__dlpack__(max_version=(1, 0), dl_device=(4, 0))
    if not mv.cuda.is_available():
        with pytest.raises(mv.cuda.CUDAError):
            a.__dlpack__(max_version=(1, 0), dl_device=(CUDA, 0))  # a copy to the device needs a driver
    assert np.from_dlpack(a, device="cpu").ctypes.data == a.ptr


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"stream": 5}, ValueError, "stream must be None"),
    ({"stream": True}, TypeError, "stream"),
    ({"max_version": 1}, TypeError, "max_version"),
    ({"max_version": (1,)}, TypeError, "max_version"),
    ({"max_version": ("1", 0)}, TypeError, "max_version"),
    ({"dl_device": "cpu"}, TypeError, "dl_device"),
    ({"copy": 1}, TypeError, "copy"),
    ({"bogus": 1}, TypeError, "unexpected keyword"),
])
def test_bad_arguments(kwargs, exc, match):
    a = mv.zeros(3)
    with pytest.raises(exc, match=match):
        a.__dlpack__(**kwargs)
    with pytest.raises(TypeError, match="keyword"):
        a.__dlpack__(None)
    assert a._exports == 0  # nothing was lent


def test_stream_minus_one_is_accepted_on_the_cpu():
    a = mv.zeros(3)
    cap = a.__dlpack__(stream=-1, max_version=(1, 0))
    assert versioned(cap).dl_tensor.data == a.ptr


@pytest.mark.parametrize("dtype", ["T{<i:a:<d:b:}", ">f8", "5s", "(2)f"])
def test_types_dlpack_cannot_describe(dtype):
    a = mv.zeros(3, dtype=dtype)
    with pytest.raises(BufferError, match="DLPack"):
        a.__dlpack__(max_version=(1, 0))
    assert a._exports == 0


def test_released_array():
    a = mv.zeros(3)
    a.release()
    with pytest.raises(ValueError, match="released"):
        a.__dlpack__()
    with pytest.raises(ValueError, match="released"):
        a.__dlpack_device__()


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_numpy_consumes_in_place(dtype, layout):
    a = LAYOUTS[layout](base(dtype))
    n = np.from_dlpack(a)
    assert n.shape == a.shape and n.strides == a.strides and n.dtype == np.dtype(dtype)
    assert n.tolist() == a.tolist()
    if a.size:
        assert n.ctypes.data == a.ptr
        n[(0,) * n.ndim] = 1
        assert a[(0,) * a.ndim] == 1  # the same memory


def test_deleter_runs_once_when_numpy_is_done():
    a = base()
    views = [np.from_dlpack(a[i]) for i in range(8)]
    assert a._exports == 0  # each view's export went to its own child array
    n = np.from_dlpack(a)
    assert a._exports == 1
    del n, views
    gc.collect()
    assert a._exports == 0


# ---- import


@pytest.mark.parametrize("dtype", list(DTYPES))
@pytest.mark.parametrize("layout", ["C", "step", "negative", "transposed", "0-d", "empty"])
def test_from_dlpack_of_numpy(dtype, layout):
    src = {"C": lambda x: x, "step": lambda x: x[::2, 1::3], "negative": lambda x: x[::-1, ::-2],
           "transposed": lambda x: x.T, "0-d": lambda x: x[2, 5, ...], "empty": lambda x: x[3:3]}[layout](
        (np.arange(8 * 12).reshape(8, 12) % 7).astype(dtype))
    a = mv.from_dlpack(src)
    assert a.shape == src.shape and a.strides == src.strides and a.dtype == dtype
    assert a.tolist() == src.tolist() and a.base is src
    if src.size:
        assert a.ptr == src.ctypes.data
    assert a.readonly == (not src.flags.writeable)


def test_from_dlpack_keeps_the_producer_alive_and_read_only():
    src = np.arange(6.0)
    src.flags.writeable = False
    a = mv.from_dlpack(src)[::-1]
    del src
    gc.collect()
    assert a.readonly and a.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    with pytest.raises(ValueError):
        a[0] = 1


def test_from_dlpack_copy_and_device():
    src = np.arange(6.0)
    c = mv.from_dlpack(src, copy=True)
    assert c.ptr != src.ctypes.data and c.tolist() == src.tolist()
    assert mv.from_dlpack(src, copy=False).ptr == src.ctypes.data
    assert mv.from_dlpack(src, device="cpu").ptr == src.ctypes.data
    with pytest.raises(TypeError):
        mv.from_dlpack(src, copy="yes")
    with pytest.raises(BufferError):
        mv.from_dlpack(src, device="cuda:0", copy=False)  # NumPy refuses the device


def test_from_dlpack_of_memview():
    a = base()
    v = a[1:3, ::-1]
    b = mv.from_dlpack(v)
    assert b.ptr == v.ptr and b.strides == (96, -8)
    assert b.base is v and v._exports == 1  # the tensor lends v, which release() then refuses
    b[0, 0] = -5
    assert a[1, 11] == -5
    del b
    gc.collect()
    assert v._exports == 0


def test_handmade_versioned_with_byte_offset():
    buf = bytearray(np.arange(10, dtype="<i4").tobytes())
    p = Producer(buf, (3,), (2,), INT, 32, byte_offset=8)
    a = mv.from_dlpack(p)
    assert a.tolist() == [2, 4, 6] and a.strides == (8,) and a.ptr == a.__array_interface__["data"][0]
    assert p.deleted == 0 and CAPSULE_NAME(p.capsule) == b"used_dltensor_versioned"
    v = a[::-1]
    del a
    gc.collect()
    assert p.deleted == 0 and v.tolist() == [6, 4, 2]  # a view keeps the tensor
    del v
    gc.collect()
    assert p.deleted == 1  # the deleter ran exactly once
    with pytest.raises(BufferError, match="once"):
        mv.from_dlpack(p)  # the capsule was consumed
    assert p.deleted == 1


def test_handmade_read_only_legacy_and_null_strides():
    buf = bytearray(np.arange(6, dtype="<f8").tobytes())
    p = Producer(buf, (2, 3), None, FLOAT, 64, flags=READ_ONLY)
    a = mv.from_dlpack(p)
    assert a.readonly and a.strides == (24, 8) and a.tolist() == [[0, 1, 2], [3, 4, 5]]
    q = Producer(buf, (3,), (2,), FLOAT, 64, versioned_=False)
    b = mv.from_dlpack(q)
    assert not b.readonly and b.tolist() == [0.0, 2.0, 4.0]
    assert CAPSULE_NAME(q.capsule) == b"used_dltensor"
    del a, b
    gc.collect()
    assert p.deleted == q.deleted == 1


def test_capsule_passed_directly():
    buf = bytearray(8 * 4)
    p = Producer(buf, (4,), (1,), UINT, 64)
    a = mv.from_dlpack(p.capsule)
    assert a.shape == (4,) and a.dtype == "uint64" and a.base is None
    del a
    gc.collect()
    assert p.deleted == 1


@pytest.mark.parametrize("kwargs, match", [
    ({"code": BFLOAT, "bits": 16}, "bfloat16"),
    ({"code": FLOAT, "bits": 8}, "no memview dtype"),
    ({"code": INT, "bits": 32, "major": 2}, "version 2"),
    ({"code": INT, "bits": 32, "device": (4, 0)}, "device type 4"),
    ({"code": INT, "bits": 32, "byte_offset": 2}, "aligned"),
])
def test_handmade_refused_and_not_consumed(kwargs, match):
    buf = bytearray(64)
    code, bits = kwargs.pop("code"), kwargs.pop("bits")
    p = Producer(buf, (4,), (1,), code, bits, **kwargs)
    with pytest.raises((BufferError, ValueError), match=match):
        mv.from_dlpack(p)
    assert p.deleted == 0 and CAPSULE_NAME(p.capsule) == b"dltensor_versioned"  # still the producer's


def test_legacy_producer_without_max_version():
    class Old:
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, stream=None):
            return self.x.__dlpack__(stream=stream)

    src = np.arange(5, dtype="int16")
    a = mv.from_dlpack(Old(src))
    assert a.ptr == src.ctypes.data and a.tolist() == [0, 1, 2, 3, 4]


def test_from_dlpack_bad_input():
    with pytest.raises(TypeError, match="no __dlpack__"):
        mv.from_dlpack([1, 2, 3])

    class Bad:
        def __dlpack__(self, **kw):
            return 42

    with pytest.raises(TypeError, match="not a PyCapsule"):
        mv.from_dlpack(Bad())


def test_asarray_uses_dlpack():
    class OnlyDLPack:
        def __init__(self, x):
            self.x = x

        def __dlpack__(self, **kw):
            return self.x.__dlpack__(**kw)

        def __dlpack_device__(self):
            return self.x.__dlpack_device__()

    src = np.arange(4.0)
    a = mv.asarray(OnlyDLPack(src))
    assert a.ptr == src.ctypes.data


# ---- the C exchange table


def new_reference(box):
    """The object C wrote into a ctypes.py_object, taking over the reference C
    gave (ctypes does not count it)."""
    obj = box.value
    ctypes.pythonapi.Py_DecRef(ctypes.py_object(obj))
    return obj


def c_error(exc, fn, *args):
    """Call a table function that fails with a Python exception set: ctypes
    reports it as SystemError caused by that exception."""
    with pytest.raises((exc, SystemError)) as info:
        fn(*args)
    err = info.value if isinstance(info.value, exc) else info.value.__cause__
    assert isinstance(err, exc), info.value
    return str(err)


def exchange_api():
    cap = type(mv.zeros(1)).__dlpack_c_exchange_api__
    ptr = CAPSULE_GET(cap, b"dlpack_exchange_api")
    return ExchangeAPI.from_address(ptr)


def test_exchange_table_header():
    api = exchange_api()
    assert (api.header.version.major, api.header.version.minor) == (1, 3) and not api.header.prev_api
    assert mv.Array.__dlpack_c_exchange_api__ is mv._core.dlpack_exchange_api


def test_exchange_table_from_and_to_py_object():
    api = exchange_api()
    a = base("int32")[::2, ::-1]
    out = ctypes.POINTER(Versioned)()
    assert api.managed_tensor_from_py_object_no_sync(a, ctypes.byref(out)) == 0
    t = out.contents
    assert t.version.major == 1 and t.flags == 0 and t.dl_tensor.data == a.ptr
    assert shape_strides(t.dl_tensor) == (a.shape, (24, -1)) and a._exports == 1
    back = ctypes.py_object()
    assert api.managed_tensor_to_py_object_no_sync(out, ctypes.byref(back)) == 0  # steals the tensor
    b = new_reference(back)
    assert isinstance(b, mv.Array) and b.ptr == a.ptr and b.tolist() == a.tolist()
    del b, back, t
    gc.collect()
    assert a._exports == 0

    dl = Tensor()
    assert api.dltensor_from_py_object_no_sync(a, ctypes.byref(dl)) == 0  # no allocation, no lending
    assert dl.data == a.ptr and shape_strides(dl) == (a.shape, (24, -1)) and a._exports == 0

    stream = ctypes.c_void_p(123)
    assert api.current_work_stream(CPU, 0, ctypes.byref(stream)) == 0 and not stream.value


def test_exchange_table_refuses_with_python_errors():
    api = exchange_api()
    out = ctypes.POINTER(Versioned)()
    assert "memview arrays only" in c_error(TypeError, api.managed_tensor_from_py_object_no_sync, [1],
                                            ctypes.byref(out))
    assert "DLPack" in c_error(BufferError, api.dltensor_from_py_object_no_sync, mv.zeros(2, ">f8"),
                               ctypes.byref(Tensor()))
    r = mv.zeros(2)
    r.release()
    assert "released" in c_error(ValueError, api.managed_tensor_from_py_object_no_sync, r, ctypes.byref(out))


def test_exchange_table_allocator():
    api = exchange_api()
    errors = []
    set_error = SET_ERROR(lambda ctx, kind, msg: errors.append((kind.decode(), msg.decode())))
    shape = (ctypes.c_int64 * 2)(3, 4)
    proto = Tensor(None, (CPU, 0), 2, (FLOAT, 32, 1), shape, None, 0)
    out = ctypes.POINTER(Versioned)()
    before = mv.default_pool().bytes_allocated
    assert api.managed_tensor_allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error) == 0
    assert not errors and mv.default_pool().bytes_allocated > before
    back = ctypes.py_object()
    assert api.managed_tensor_to_py_object_no_sync(out, ctypes.byref(back)) == 0
    a = new_reference(back)
    assert a.shape == (3, 4) and a.dtype == "float32" and a.tolist() == [[0.0] * 4] * 3
    del a, back
    proto.dtype.code = BFLOAT
    assert api.managed_tensor_allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error) == -1
    assert errors and errors[0][0] == "BufferError" and "bfloat16" in errors[0][1]
    proto.dtype.code, proto.device.device_type = FLOAT, 4
    assert api.managed_tensor_allocator(ctypes.byref(proto), ctypes.byref(out), None, set_error) == -1
    assert errors[1][0] == "BufferError"


def test_exchange_table_to_py_refuses_and_deletes():
    api = exchange_api()
    buf = bytearray(16)
    p = Producer(buf, (2,), (1,), BFLOAT, 16)
    back = ctypes.py_object()
    assert "bfloat16" in c_error(BufferError, api.managed_tensor_to_py_object_no_sync, ctypes.pointer(p.tensor),
                                 ctypes.byref(back))
    assert p.deleted == 1  # ownership was passed: the deleter ran


def test_cuda_host_memory_reaches_a_cpu_consumer_in_place():
    """Pinned host memory is CPU-readable: dl_device=(CPU, 0) needs no copy."""
    if not mv.cuda.is_available():
        pytest.skip("no CUDA driver: pinned memory cannot be allocated here (the fake driver covers it)")
    h = mv.arange(4.0, device="cuda_host")
    assert h.__dlpack_device__() == (CUDA_HOST, 0)
    assert np.from_dlpack(h, device="cpu").ctypes.data == h.ptr


def test_exports_alive_at_interpreter_exit(tmp_path):
    """Tensors still held when the interpreter exits — by a module global, an
    unconsumed capsule, a daemon thread — neither crash nor hang the exit."""
    import subprocess
    import sys
    script = tmp_path / "exit.py"
    script.write_text(
        "import threading, time, numpy as np, memview as mv\n"
        "keep = np.from_dlpack(mv.arange(1000.0))\n"
        "cap = mv.zeros(10).__dlpack__(max_version=(1, 0))\n"
        "def hold():\n"
        "    x = np.from_dlpack(mv.arange(10.0)[::2])\n"
        "    time.sleep(30)\n"
        "threading.Thread(target=hold, daemon=True).start()\n"
        "time.sleep(0.2)\n"
        "print('exiting')\n")
    import os
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert r.returncode == 0 and r.stdout == "exiting\n", r.stderr[-2000:]


def test_repeated_calls_read_their_own_arguments():
    """Keyword names and version tuples are remembered by identity from call to call
    (a call site passes the same ones); what each call passes still decides."""
    a = mv.arange(4.0)
    legacy, versioned = (0, 8), (1, 0)
    for _ in range(3):
        for mv_ in (legacy, versioned, legacy):
            cap = a.__dlpack__(max_version=mv_, copy=False)
            name = "dltensor_versioned" if mv_ == versioned else "dltensor"
            assert f'"{name}"' in repr(cap)
            del cap
        x = np.arange(3.0)
        assert mv.from_dlpack(x, device="cpu").tolist() == [0.0, 1.0, 2.0]
        with pytest.raises(TypeError, match="multiple values"):
            mv.from_dlpack(x, x=x)
        with pytest.raises(TypeError, match="unexpected keyword"):
            a.__dlpack__(max_version=versioned, colour=1)
        with pytest.raises(TypeError, match="max_version"):
            a.__dlpack__(max_version=(1,))
